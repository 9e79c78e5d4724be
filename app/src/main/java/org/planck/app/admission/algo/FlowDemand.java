package org.planck.app.admission.algo;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What a guaranteed flow asks for: its token bucket (enforced by a meter at the ingress), its
 * packet sizes, and its end-to-end deadline.
 */
public final class FlowDemand {
    private final long rateBytesPerSec;
    private final long burstBytes;
    private final int minPacketBytes;
    private final int maxPacketBytes;
    private final long deadlineNanos;

    /**
     * A demand.
     *
     * @param rateBytesPerSec token rate, > 0
     * @param burstBytes      bucket depth, >= maxPacketBytes
     * @param minPacketBytes  smallest packet, > 0 (per-packet costs scale with 1/min)
     * @param maxPacketBytes  largest packet, >= minPacketBytes
     * @param deadlineNanos   end-to-end deadline, > 0
     */
    public FlowDemand(long rateBytesPerSec, long burstBytes, int minPacketBytes, int maxPacketBytes,
                      long deadlineNanos) {
        checkArgument(rateBytesPerSec > 0, "rate must be > 0");
        checkArgument(minPacketBytes > 0, "min packet size must be > 0");
        checkArgument(maxPacketBytes >= minPacketBytes, "max packet size must be >= min packet size");
        checkArgument(burstBytes >= maxPacketBytes, "burst must hold at least one max-size packet");
        checkArgument(deadlineNanos > 0, "deadline must be > 0");
        this.rateBytesPerSec = rateBytesPerSec;
        this.burstBytes = burstBytes;
        this.minPacketBytes = minPacketBytes;
        this.maxPacketBytes = maxPacketBytes;
        this.deadlineNanos = deadlineNanos;
    }

    public long rateBytesPerSec() {
        return rateBytesPerSec;
    }

    public long burstBytes() {
        return burstBytes;
    }

    public int minPacketBytes() {
        return minPacketBytes;
    }

    public int maxPacketBytes() {
        return maxPacketBytes;
    }

    public long deadlineNanos() {
        return deadlineNanos;
    }

    /**
     * The arrival curve at the ingress, bytes and seconds.
     *
     * @return gamma_{r,b}
     */
    public TokenBucket arrival() {
        return TokenBucket.of(rateBytesPerSec, burstBytes);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof FlowDemand)) {
            return false;
        }
        FlowDemand d = (FlowDemand) o;
        return rateBytesPerSec == d.rateBytesPerSec && burstBytes == d.burstBytes
                && minPacketBytes == d.minPacketBytes && maxPacketBytes == d.maxPacketBytes
                && deadlineNanos == d.deadlineNanos;
    }

    @Override
    public int hashCode() {
        return Objects.hash(rateBytesPerSec, burstBytes, minPacketBytes, maxPacketBytes, deadlineNanos);
    }

    @Override
    public String toString() {
        return "FlowDemand{r=" + rateBytesPerSec + "B/s, b=" + burstBytes + "B, pkt=" + minPacketBytes + ".."
                + maxPacketBytes + "B, deadline=" + deadlineNanos + "ns}";
    }
}
