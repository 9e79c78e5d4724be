package org.planck.api.telemetry;

import org.onosproject.event.EventListener;

/**
 * Receives flow reroutes.
 */
public interface PlanckRerouteListener extends EventListener<PlanckRerouteEvent> {
}
