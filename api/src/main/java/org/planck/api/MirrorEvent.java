package org.planck.api;

import org.onosproject.event.AbstractEvent;

/**
 * A mirror session was set up, changed or removed.
 */
public class MirrorEvent extends AbstractEvent<MirrorEvent.Type, MirrorSession> {

    /** Kinds of change. */
    public enum Type {
        SESSION_UPDATED,
        SESSION_REMOVED
    }

    /**
     * Creates an event.
     *
     * @param type    kind of change
     * @param session the session (as it was, for removals)
     */
    public MirrorEvent(Type type, MirrorSession session) {
        super(type, session);
    }
}
