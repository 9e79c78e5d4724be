package org.planck.api.te;

import org.onosproject.event.EventListener;

/**
 * Receives flow reroutes.
 */
public interface PlanckRerouteListener extends EventListener<PlanckRerouteEvent> {
}
