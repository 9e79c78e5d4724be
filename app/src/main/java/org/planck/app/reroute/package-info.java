/**
 * The reroute log: every move TE or an operator made, with its loop latency, as ONOS events.
 * ONOS component.
 */
package org.planck.app.reroute;
