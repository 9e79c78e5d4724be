package org.planck.api.admission;

import org.onlab.packet.MacAddress;
import org.planck.api.FlowKey;

import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * What an operator asks for: a flow (one 5-tuple, or all traffic of a host pair), its token
 * bucket, its packet sizes, and the end-to-end deadline every packet must meet.
 *
 * <p>A 5-tuple flow may be pinned to any shadow path between its hosts. A host-pair request
 * covers traffic that has no per-flow rule, which follows the pair's default path, so that path
 * is its only candidate.</p>
 */
public final class GuaranteeRequest {
    /** Smallest packet assumed when a request does not say (Ethernet minimum frame). */
    public static final int DEFAULT_MIN_PACKET_BYTES = 64;

    private final FlowKey flow;
    private final MacAddress src;
    private final MacAddress dst;
    private final long rateBytesPerSec;
    private final long burstBytes;
    private final int minPacketBytes;
    private final int maxPacketBytes;
    private final long deadlineNanos;

    private GuaranteeRequest(FlowKey flow, MacAddress src, MacAddress dst, long rateBytesPerSec, long burstBytes,
                             int minPacketBytes, int maxPacketBytes, long deadlineNanos) {
        checkArgument(rateBytesPerSec > 0, "rate must be > 0 bytes/s, got %s", rateBytesPerSec);
        checkArgument(minPacketBytes > 0, "min packet size must be > 0, got %s", minPacketBytes);
        checkArgument(maxPacketBytes >= minPacketBytes, "max packet size %s must be >= min packet size %s",
                maxPacketBytes, minPacketBytes);
        checkArgument(burstBytes >= maxPacketBytes, "burst %s must hold at least one max-size packet (%s bytes)",
                burstBytes, maxPacketBytes);
        checkArgument(deadlineNanos > 0, "deadline must be > 0, got %s ns", deadlineNanos);
        this.flow = flow;
        this.src = src;
        this.dst = dst;
        this.rateBytesPerSec = rateBytesPerSec;
        this.burstBytes = burstBytes;
        this.minPacketBytes = minPacketBytes;
        this.maxPacketBytes = maxPacketBytes;
        this.deadlineNanos = deadlineNanos;
    }

    /**
     * A request for one 5-tuple; its hosts are found by the tuple's addresses.
     *
     * @param flow            the 5-tuple
     * @param rateBytesPerSec token rate, > 0
     * @param burstBytes      bucket depth, >= maxPacketBytes
     * @param minPacketBytes  smallest packet, > 0
     * @param maxPacketBytes  largest packet
     * @param deadlineNanos   end-to-end deadline, > 0
     * @return the request
     * @throws IllegalArgumentException on a bad value
     */
    public static GuaranteeRequest forFlow(FlowKey flow, long rateBytesPerSec, long burstBytes, int minPacketBytes,
                                           int maxPacketBytes, long deadlineNanos) {
        checkNotNull(flow, "flow");
        return new GuaranteeRequest(flow, null, null, rateBytesPerSec, burstBytes, minPacketBytes,
                maxPacketBytes, deadlineNanos);
    }

    /**
     * A request for all traffic from one host to another.
     *
     * @param src             source host MAC
     * @param dst             destination host MAC
     * @param rateBytesPerSec token rate, > 0
     * @param burstBytes      bucket depth, >= maxPacketBytes
     * @param minPacketBytes  smallest packet, > 0
     * @param maxPacketBytes  largest packet
     * @param deadlineNanos   end-to-end deadline, > 0
     * @return the request
     * @throws IllegalArgumentException on a bad value
     */
    public static GuaranteeRequest forHostPair(MacAddress src, MacAddress dst, long rateBytesPerSec,
                                               long burstBytes, int minPacketBytes, int maxPacketBytes,
                                               long deadlineNanos) {
        checkNotNull(src, "src");
        checkNotNull(dst, "dst");
        checkArgument(!src.equals(dst), "source and destination are the same host");
        return new GuaranteeRequest(null, src, dst, rateBytesPerSec, burstBytes, minPacketBytes, maxPacketBytes,
                deadlineNanos);
    }

    /**
     * The 5-tuple, for a per-flow request.
     *
     * @return flow, or empty for a host pair
     */
    public Optional<FlowKey> flow() {
        return Optional.ofNullable(flow);
    }

    /**
     * Source host MAC, for a host-pair request.
     *
     * @return MAC, or empty for a 5-tuple request
     */
    public Optional<MacAddress> src() {
        return Optional.ofNullable(src);
    }

    /**
     * Destination host MAC, for a host-pair request.
     *
     * @return MAC, or empty for a 5-tuple request
     */
    public Optional<MacAddress> dst() {
        return Optional.ofNullable(dst);
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

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof GuaranteeRequest)) {
            return false;
        }
        GuaranteeRequest r = (GuaranteeRequest) o;
        return Objects.equals(flow, r.flow) && Objects.equals(src, r.src) && Objects.equals(dst, r.dst)
                && rateBytesPerSec == r.rateBytesPerSec && burstBytes == r.burstBytes
                && minPacketBytes == r.minPacketBytes && maxPacketBytes == r.maxPacketBytes
                && deadlineNanos == r.deadlineNanos;
    }

    @Override
    public int hashCode() {
        return Objects.hash(flow, src, dst, rateBytesPerSec, burstBytes, minPacketBytes, maxPacketBytes,
                deadlineNanos);
    }

    @Override
    public String toString() {
        return "GuaranteeRequest{" + (flow != null ? flow : src + "->" + dst) + ", r=" + rateBytesPerSec
                + "B/s, b=" + burstBytes + "B, pkt=" + minPacketBytes + ".." + maxPacketBytes + "B, deadline="
                + deadlineNanos + "ns}";
    }
}
