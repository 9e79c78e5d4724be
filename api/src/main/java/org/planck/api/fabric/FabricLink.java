package org.planck.api.fabric;

import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A directed switch-to-switch link: frames leave {@link #src()} and arrive at {@link #dst()}.
 * A physical cable is two links, one per direction.
 */
public final class FabricLink {
    private final ConnectPoint src;
    private final ConnectPoint dst;
    private final long capacityBps;

    private FabricLink(ConnectPoint src, ConnectPoint dst, long capacityBps) {
        this.src = checkNotNull(src, "src");
        this.dst = checkNotNull(dst, "dst");
        checkArgument(!src.deviceId().equals(dst.deviceId()), "self-link on %s", src.deviceId());
        checkArgument(capacityBps > 0, "capacity must be positive: %s", capacityBps);
        this.capacityBps = capacityBps;
    }

    /**
     * Creates a directed link.
     *
     * @param src         egress connect point
     * @param dst         ingress connect point on another switch
     * @param capacityBps capacity in bits per second, positive
     * @return the link
     */
    public static FabricLink of(ConnectPoint src, ConnectPoint dst, long capacityBps) {
        return new FabricLink(src, dst, capacityBps);
    }

    /**
     * Creates a directed link.
     *
     * @param srcDevice   egress switch
     * @param srcPort     egress port
     * @param dstDevice   ingress switch
     * @param dstPort     ingress port
     * @param capacityBps capacity in bits per second, positive
     * @return the link
     */
    public static FabricLink of(DeviceId srcDevice, PortNumber srcPort,
                                DeviceId dstDevice, PortNumber dstPort, long capacityBps) {
        return new FabricLink(new ConnectPoint(srcDevice, srcPort),
                              new ConnectPoint(dstDevice, dstPort), capacityBps);
    }

    public ConnectPoint src() {
        return src;
    }

    public ConnectPoint dst() {
        return dst;
    }

    public DeviceId srcDevice() {
        return src.deviceId();
    }

    public PortNumber srcPort() {
        return src.port();
    }

    public DeviceId dstDevice() {
        return dst.deviceId();
    }

    public PortNumber dstPort() {
        return dst.port();
    }

    /**
     * Capacity of the egress port in bits per second.
     *
     * @return capacity, positive
     */
    public long capacityBps() {
        return capacityBps;
    }

    /**
     * The link in the opposite direction with the same capacity.
     *
     * @return reverse link
     */
    public FabricLink reversed() {
        return new FabricLink(dst, src, capacityBps);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FabricLink)) {
            return false;
        }
        FabricLink l = (FabricLink) o;
        return capacityBps == l.capacityBps && src.equals(l.src) && dst.equals(l.dst);
    }

    @Override
    public int hashCode() {
        return Objects.hash(src, dst, capacityBps);
    }

    @Override
    public String toString() {
        return src + "->" + dst;
    }
}
