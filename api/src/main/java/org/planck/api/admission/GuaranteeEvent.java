package org.planck.api.admission;

import org.onosproject.event.AbstractEvent;

/**
 * A guarantee was admitted or removed.
 */
public class GuaranteeEvent extends AbstractEvent<GuaranteeEvent.Type, Guarantee> {

    /** Kinds of change. */
    public enum Type {
        GUARANTEE_ADMITTED,
        GUARANTEE_REMOVED
    }

    /**
     * An event.
     *
     * @param type      kind
     * @param guarantee the guarantee
     */
    public GuaranteeEvent(Type type, Guarantee guarantee) {
        super(type, guarantee);
    }
}
