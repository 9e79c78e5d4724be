package org.planck.api.telemetry;

/**
 * How a collector estimated a flow's rate.
 */
public enum RateEstimator {
    /** From TCP sequence numbers of sampled segments. */
    TCP_SEQ,
    /** From acknowledgement numbers of the reverse direction. */
    TCP_ACK,
    /** Sampled bytes times the sampling ratio (UDP, or unusable sequence numbers). */
    SAMPLED_BYTES
}
