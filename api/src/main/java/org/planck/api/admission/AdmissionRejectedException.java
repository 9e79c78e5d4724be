package org.planck.api.admission;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A guarantee request that was not admitted, and why. Nothing was changed.
 */
public class AdmissionRejectedException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why. */
    public enum Reason {
        /** The request itself is wrong: unknown hosts, deadline below the path's fixed latency... (HTTP 400). */
        BAD_REQUEST,
        /** No path has room: the flow, or an admitted flow, would miss its deadline (HTTP 409). */
        NO_CAPACITY,
        /** Shadow routes are not in force (HTTP 503). */
        NOT_ROUTED
    }

    private final Reason reason;

    /**
     * A rejection.
     *
     * @param reason  kind
     * @param message which hop, which bound
     */
    public AdmissionRejectedException(Reason reason, String message) {
        super(message);
        this.reason = checkNotNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
