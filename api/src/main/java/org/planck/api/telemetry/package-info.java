/**
 * Telemetry from Planck collectors: the event model of the telemetry-events-v1 contract,
 * its codec, flow and port state services, congestion events, metrics.
 */
package org.planck.api.telemetry;
