/**
 * Karaf commands for telemetry: live flows and port loads.
 */
package org.planck.cli.telemetry;
