package org.planck.api.te;

/**
 * Where traffic engineering reports each flow it moved ({@link RerouteService} in ONOS: the
 * reroute log and events; the lab's loop-latency log).
 */
public interface RerouteReporter {

    /**
     * Reports a reroute that was just submitted to the switch.
     *
     * @param type    automatic (TE) or manual
     * @param reroute what moved where
     */
    void report(PlanckRerouteEvent.Type type, Reroute reroute);
}
