package org.planck.api.inband;

/**
 * How the path PINT traced for a flow compares with the path the routing plan puts it on
 * (the host pair's shadow path, or the one a TE/manual reroute moved it to).
 */
public enum ConformanceStatus {
    /** The traced path is the planned one; the flow was not moved since (or the trace predates no move). */
    CONFORMING,
    /** The flow was moved and a trace received after the move shows it on its new path. */
    MOVED_CONFIRMED,
    /** The flow was moved recently: no trace has shown it on its new path yet, within the confirmation timeout. */
    MOVE_PENDING,
    /** The traced path is not the planned one (a moved flow still traced elsewhere after the timeout included). */
    NON_CONFORMING,
    /** The flow was moved, the timeout passed, and no trace of the flow exists at all: nothing to compare. */
    UNTRACED,
    /** The routing plan has no path for the flow (no plan, unknown hosts, or hosts on one edge switch). */
    UNPLANNED
}
