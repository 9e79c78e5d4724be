package org.planck.api.te;

import org.onosproject.event.ListenerService;

import java.util.List;

/**
 * Where traffic engineering reports the flows it moved; keeps a bounded log of recent
 * reroutes and posts {@link PlanckRerouteEvent}s so other applications can react.
 */
public interface RerouteService extends RerouteReporter, ListenerService<PlanckRerouteEvent, PlanckRerouteListener> {

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
