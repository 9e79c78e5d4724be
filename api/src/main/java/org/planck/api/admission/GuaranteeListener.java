package org.planck.api.admission;

import org.onosproject.event.EventListener;

/**
 * Receives {@link GuaranteeEvent}s.
 */
public interface GuaranteeListener extends EventListener<GuaranteeEvent> {
}
