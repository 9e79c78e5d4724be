/**
 * In-band telemetry rules (plain Java, no ONOS services): how an INT signal updates a port's
 * state and when its queue occupancy counts as congestion; PINT path conformance (traced path
 * against the routing plan's) and the planned path of a flow.
 */
package org.planck.app.inband.algo;
