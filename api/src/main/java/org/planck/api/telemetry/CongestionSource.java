package org.planck.api.telemetry;

/**
 * Who decided that a port's congestion state changed.
 */
public enum CongestionSource {
    /** A collector's PORT_CONGESTION notice. */
    COLLECTOR,
    /** The controller's own per-port load view (sum of flow rates) crossing the threshold. */
    LOAD_VIEW,
    /**
     * INT queue occupancy of the port crossing the network config's intQueueThreshold (or,
     * clearing, going below it minus intQueueHysteresis, or its INT state expiring).
     */
    INT_QUEUE,
    /** Idle expiry: no live flows on a port a collector had declared congested. */
    EXPIRY
}
