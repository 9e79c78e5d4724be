package org.planck.api.telemetry;

/**
 * Congestion state of a switch port.
 */
public enum CongestionState {
    /** Load crossed the congestion threshold. */
    CONGESTED,
    /** Load fell below threshold minus hysteresis. */
    CLEARED
}
