package org.planck.api.config;

import org.onosproject.event.AbstractEvent;

/**
 * A change of the configuration in force.
 */
public class PlanckConfigEvent extends AbstractEvent<PlanckConfigEvent.Type, PlanckSettings> {

    /** Kinds of change. */
    public enum Type {
        /** A new valid configuration is in force (the subject). */
        CONFIG_UPDATED,
        /** The configuration was removed; the subject is the configuration that was in force. */
        CONFIG_REMOVED
    }

    /**
     * Creates an event.
     *
     * @param type     kind of change
     * @param settings the configuration now in force, or the one removed
     */
    public PlanckConfigEvent(Type type, PlanckSettings settings) {
        super(type, settings);
    }
}
