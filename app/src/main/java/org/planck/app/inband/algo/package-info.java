/**
 * INT port state rules (plain Java, no ONOS services): how a signal updates a port's state and
 * when its queue occupancy counts as congestion.
 */
package org.planck.app.inband.algo;
