package org.planck.api.inband;

import org.onosproject.event.EventListener;

/**
 * Listens for {@link PathConformanceEvent}s.
 */
public interface PathConformanceListener extends EventListener<PathConformanceEvent> {
}
