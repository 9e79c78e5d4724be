package org.planck.api;

import org.onosproject.event.EventListener;

/**
 * Receives shadow route changes.
 */
public interface ShadowRouteListener extends EventListener<ShadowRouteEvent> {
}
