package org.planck.api.te;

import org.planck.api.FlowKey;

/**
 * The traffic-engineering loop: its mode and manual reroutes. Moves are reported to
 * {@link org.planck.api.te.RerouteService} (log, events, counts).
 */
public interface TeService {

    /**
     * The mode asked for (component configuration, REST or CLI).
     *
     * @return requested mode
     */
    TeMode requestedMode();

    /**
     * The mode in force: the requested one, or STATIC while the network config has
     * {@code teEnabled=false}.
     *
     * @return effective mode
     */
    TeMode mode();

    /**
     * Whether TE is allowed by the network config ({@code teEnabled}).
     *
     * @return false if the config forces STATIC
     */
    boolean teEnabled();

    /**
     * Requests a mode. Entering STATIC removes all per-flow placements, so every flow follows
     * its host pair's hash default again.
     *
     * @param mode the mode
     */
    void setMode(TeMode mode);

    /**
     * Moves a live flow onto shadow path {@code pathIndex} by hand (one ingress-edge rule).
     *
     * @param flow      the flow's 5-tuple
     * @param pathIndex shadow path index toward the flow's destination
     * @return the reroute, as logged
     * @throws RerouteRejectedException if the flow is unknown, the index is not one of its paths,
     *                                  or routes are not in force; nothing changes then
     */
    Reroute reroute(FlowKey flow, int pathIndex) throws RerouteRejectedException;
}
