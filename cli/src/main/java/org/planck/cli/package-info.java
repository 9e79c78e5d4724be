/**
 * Planck Karaf shell commands.
 */
package org.planck.cli;
