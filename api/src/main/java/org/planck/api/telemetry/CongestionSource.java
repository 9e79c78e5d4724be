package org.planck.api.telemetry;

/**
 * Who decided that a port's congestion state changed.
 */
public enum CongestionSource {
    /** A collector's PORT_CONGESTION notice. */
    COLLECTOR,
    /** The controller's own per-port load view (sum of flow rates) crossing the threshold. */
    LOAD_VIEW,
    /** Idle expiry: no live flows on a port a collector had declared congested. */
    EXPIRY
}
