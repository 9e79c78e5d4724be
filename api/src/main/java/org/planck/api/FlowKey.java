package org.planck.api;

import org.onlab.packet.IpAddress;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A transport flow's 5-tuple: the identity of a flow in telemetry, flow state and TE.
 */
public final class FlowKey {
    private final IpAddress src;
    private final IpAddress dst;
    private final int proto;
    private final int srcPort;
    private final int dstPort;

    private FlowKey(IpAddress src, IpAddress dst, int proto, int srcPort, int dstPort) {
        this.src = checkNotNull(src, "src");
        this.dst = checkNotNull(dst, "dst");
        checkArgument(src.version() == dst.version(), "src and dst must be the same IP version");
        checkArgument(proto >= 0 && proto <= 255, "proto out of range: %s", proto);
        checkArgument(srcPort >= 0 && srcPort <= 65535, "sport out of range: %s", srcPort);
        checkArgument(dstPort >= 0 && dstPort <= 65535, "dport out of range: %s", dstPort);
        this.proto = proto;
        this.srcPort = srcPort;
        this.dstPort = dstPort;
    }

    /**
     * Creates a flow key.
     *
     * @param src     source address
     * @param dst     destination address, same IP version as src
     * @param proto   IP protocol number, 0-255
     * @param srcPort transport source port, 0-65535 (0 for port-less protocols)
     * @param dstPort transport destination port, 0-65535
     * @return the key
     * @throws IllegalArgumentException if a value is out of range
     */
    public static FlowKey of(IpAddress src, IpAddress dst, int proto, int srcPort, int dstPort) {
        return new FlowKey(src, dst, proto, srcPort, dstPort);
    }

    public IpAddress src() {
        return src;
    }

    public IpAddress dst() {
        return dst;
    }

    public int proto() {
        return proto;
    }

    public int srcPort() {
        return srcPort;
    }

    public int dstPort() {
        return dstPort;
    }

    /**
     * The key of the same conversation in the opposite direction.
     *
     * @return reversed key
     */
    public FlowKey reversed() {
        return new FlowKey(dst, src, proto, dstPort, srcPort);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FlowKey)) {
            return false;
        }
        FlowKey k = (FlowKey) o;
        return proto == k.proto && srcPort == k.srcPort && dstPort == k.dstPort
                && src.equals(k.src) && dst.equals(k.dst);
    }

    @Override
    public int hashCode() {
        return Objects.hash(src, dst, proto, srcPort, dstPort);
    }

    @Override
    public String toString() {
        return src + ":" + srcPort + "->" + dst + ":" + dstPort + "/" + proto;
    }
}
