package org.planck.app.admission.algo;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Deterministic model of one switch whose ports share one processor (Loko): a rate-latency
 * service curve for all traffic through the switch together, a per-packet cost, the backlog it
 * can hold without loss, and the best-effort traffic it must be assumed to carry besides the
 * guaranteed flows.
 *
 * <p>Service is counted in work bytes: a packet of L bytes costs L + {@code perPacketOverheadBytes}
 * of service, which is how a per-packet processing cost shows up in a byte-rate curve. A flow whose
 * packets are at least m bytes long therefore needs (m + o)/m work bytes per byte.</p>
 */
public final class SwitchModel {
    private final long serviceRateBytesPerSec;
    private final long serviceLatencyNanos;
    private final long perPacketOverheadBytes;
    private final long maxBacklogBytes;
    private final long bestEffortRateBytesPerSec;
    private final long bestEffortBurstBytes;

    /**
     * A switch model.
     *
     * @param serviceRateBytesPerSec    R of the shared service, work bytes/s, > 0
     * @param serviceLatencyNanos       T of the shared service, ns, >= 0
     * @param perPacketOverheadBytes    per-packet cost in work bytes, >= 0
     * @param maxBacklogBytes           work bytes the switch holds without loss, > 0
     * @param bestEffortRateBytesPerSec work rate reserved for unguaranteed traffic (policed), >= 0
     * @param bestEffortBurstBytes      burst of unguaranteed traffic, work bytes, >= 0
     */
    public SwitchModel(long serviceRateBytesPerSec, long serviceLatencyNanos, long perPacketOverheadBytes,
                       long maxBacklogBytes, long bestEffortRateBytesPerSec, long bestEffortBurstBytes) {
        checkArgument(serviceRateBytesPerSec > 0, "service rate must be > 0");
        checkArgument(serviceLatencyNanos >= 0, "service latency must be >= 0");
        checkArgument(perPacketOverheadBytes >= 0, "per-packet overhead must be >= 0");
        checkArgument(maxBacklogBytes > 0, "max backlog must be > 0");
        checkArgument(bestEffortRateBytesPerSec >= 0 && bestEffortRateBytesPerSec < serviceRateBytesPerSec,
                "best-effort rate must be in [0, service rate)");
        checkArgument(bestEffortBurstBytes >= 0, "best-effort burst must be >= 0");
        this.serviceRateBytesPerSec = serviceRateBytesPerSec;
        this.serviceLatencyNanos = serviceLatencyNanos;
        this.perPacketOverheadBytes = perPacketOverheadBytes;
        this.maxBacklogBytes = maxBacklogBytes;
        this.bestEffortRateBytesPerSec = bestEffortRateBytesPerSec;
        this.bestEffortBurstBytes = bestEffortBurstBytes;
    }

    public long serviceRateBytesPerSec() {
        return serviceRateBytesPerSec;
    }

    public long serviceLatencyNanos() {
        return serviceLatencyNanos;
    }

    public long perPacketOverheadBytes() {
        return perPacketOverheadBytes;
    }

    public long maxBacklogBytes() {
        return maxBacklogBytes;
    }

    public long bestEffortRateBytesPerSec() {
        return bestEffortRateBytesPerSec;
    }

    public long bestEffortBurstBytes() {
        return bestEffortBurstBytes;
    }

    /**
     * The shared service as a curve, in work bytes and seconds.
     *
     * @return beta_{R,T}
     */
    public RateLatency service() {
        return RateLatency.of(Rational.of(serviceRateBytesPerSec), Rational.of(serviceLatencyNanos, 1_000_000_000L));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SwitchModel)) {
            return false;
        }
        SwitchModel m = (SwitchModel) o;
        return serviceRateBytesPerSec == m.serviceRateBytesPerSec && serviceLatencyNanos == m.serviceLatencyNanos
                && perPacketOverheadBytes == m.perPacketOverheadBytes && maxBacklogBytes == m.maxBacklogBytes
                && bestEffortRateBytesPerSec == m.bestEffortRateBytesPerSec
                && bestEffortBurstBytes == m.bestEffortBurstBytes;
    }

    @Override
    public int hashCode() {
        return Objects.hash(serviceRateBytesPerSec, serviceLatencyNanos, perPacketOverheadBytes, maxBacklogBytes,
                bestEffortRateBytesPerSec, bestEffortBurstBytes);
    }

    @Override
    public String toString() {
        return "SwitchModel{R=" + serviceRateBytesPerSec + "B/s, T=" + serviceLatencyNanos + "ns, o="
                + perPacketOverheadBytes + "B, backlog=" + maxBacklogBytes + "B, bestEffort="
                + bestEffortRateBytesPerSec + "B/s+" + bestEffortBurstBytes + "B}";
    }
}
