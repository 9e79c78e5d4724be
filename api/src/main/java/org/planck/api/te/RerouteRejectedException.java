package org.planck.api.te;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A manual reroute that was refused; nothing was changed.
 */
public class RerouteRejectedException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a reroute was refused. */
    public enum Reason {
        /** No live flow with that 5-tuple, or its hosts are not routed. */
        UNKNOWN_FLOW,
        /** The path index is not one of the flow's shadow paths. */
        PATH_OUT_OF_RANGE,
        /** Shadow routes are not in force (Planck not configured). */
        NOT_ROUTED,
        /** Admission control refused the move: the flow is guaranteed, or the move would break a guarantee. */
        GUARANTEE_AT_RISK
    }

    private final Reason reason;

    /**
     * Creates the exception.
     *
     * @param reason  why
     * @param message detail for the operator
     */
    public RerouteRejectedException(Reason reason, String message) {
        super(message);
        this.reason = checkNotNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
