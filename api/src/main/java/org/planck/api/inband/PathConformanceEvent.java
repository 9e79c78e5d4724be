package org.planck.api.inband;

import org.onosproject.event.AbstractEvent;

/**
 * A flow's path conformance changed in a way operators act on.
 */
public class PathConformanceEvent extends AbstractEvent<PathConformanceEvent.Type, FlowConformance> {

    /** Event kinds. */
    public enum Type {
        /** The flow's traced path is not the planned one (rules do not do what the controller thinks). */
        NON_CONFORMING,
        /** A moved flow was traced on its new path. */
        MOVE_CONFIRMED
    }

    /**
     * Creates an event.
     *
     * @param type    kind
     * @param subject the flow's verdict when it happened
     */
    public PathConformanceEvent(Type type, FlowConformance subject) {
        super(type, subject);
    }
}
