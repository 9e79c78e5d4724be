package org.planck.api.te;

import org.onosproject.event.AbstractEvent;

/**
 * A flow was moved onto another shadow path.
 */
public class PlanckRerouteEvent extends AbstractEvent<PlanckRerouteEvent.Type, Reroute> {

    /** Reroute kinds. */
    public enum Type {
        /** Traffic engineering moved a flow off a congested port. */
        FLOW_REROUTED,
        /** An operator moved a flow by hand (CLI/REST). */
        FLOW_REROUTED_MANUALLY
    }

    /**
     * Creates an event.
     *
     * @param type    kind of reroute
     * @param reroute what moved where
     */
    public PlanckRerouteEvent(Type type, Reroute reroute) {
        super(type, reroute);
    }
}
