package org.planck.api.telemetry;

import org.onosproject.event.EventListener;

/**
 * Receives port congestion transitions.
 */
public interface PlanckCongestionListener extends EventListener<PlanckCongestionEvent> {
}
