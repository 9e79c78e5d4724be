/**
 * CLI of traffic engineering: TE mode and manual reroutes.
 */
package org.planck.cli.te;
