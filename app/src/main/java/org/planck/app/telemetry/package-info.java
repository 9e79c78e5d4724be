/**
 * Telemetry ingestion, flow and port state, congestion detection, reroute log and port-statistics polling.
 */
package org.planck.app.telemetry;
