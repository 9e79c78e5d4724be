package org.planck.api.config;

import org.onosproject.event.EventListener;

/**
 * Receives changes of the configuration in force.
 */
public interface PlanckConfigListener extends EventListener<PlanckConfigEvent> {
}
