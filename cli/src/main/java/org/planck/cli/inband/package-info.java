/**
 * CLI commands of the controller's INT port state.
 */
package org.planck.cli.inband;
