/**
 * In-band telemetry in ONOS: the component that keeps collectors' INT_PORT signals per switch
 * egress port in a replicated map and turns queue occupancy into congestion marks, and the one
 * that judges PINT-traced flow paths against the routing plan (path conformance).
 */
package org.planck.app.inband;
