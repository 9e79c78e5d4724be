/**
 * INT port state in ONOS: the component that keeps collectors' INT_PORT signals per switch
 * egress port in a replicated map and turns queue occupancy into congestion marks.
 */
package org.planck.app.inband;
