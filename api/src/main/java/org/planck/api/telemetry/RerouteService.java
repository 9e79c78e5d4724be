package org.planck.api.telemetry;

import org.onosproject.event.ListenerService;

import java.util.List;

/**
 * Where traffic engineering reports the flows it moved; keeps a bounded log of recent
 * reroutes and posts {@link PlanckRerouteEvent}s so other applications can react.
 */
public interface RerouteService extends ListenerService<PlanckRerouteEvent, PlanckRerouteListener> {

    /**
     * Reports a reroute that was just submitted to the switch.
     *
     * @param type    automatic (TE) or manual
     * @param reroute what moved where
     */
    void report(PlanckRerouteEvent.Type type, Reroute reroute);

    /**
     * The most recent reroutes, newest first.
     *
     * @param max most entries returned
     * @return up to max reroutes
     */
    List<Reroute> recent(int max);

    /**
     * Reroutes reported since activation.
     *
     * @return count
     */
    long rerouteCount();
}
