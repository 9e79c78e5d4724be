package org.planck.api.fabric;

import com.google.common.collect.ImmutableList;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;

import java.util.List;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The path one source edge switch uses to reach a destination host on one shadow MAC:
 * the branch of a {@link ShadowTree} from that source. The last hop is the destination's
 * edge switch and the host port.
 */
public final class ShadowPath {
    private final ShadowPathId id;
    private final MacAddress shadowMac;
    private final List<PathHop> hops;

    private ShadowPath(ShadowPathId id, MacAddress shadowMac, List<PathHop> hops) {
        this.id = checkNotNull(id, "id");
        this.shadowMac = checkNotNull(shadowMac, "shadowMac");
        this.hops = ImmutableList.copyOf(hops);
        checkArgument(!this.hops.isEmpty(), "a path has at least one hop");
    }

    /**
     * Creates a path.
     *
     * @param id        (destination, index)
     * @param shadowMac the shadow MAC of the id
     * @param hops      hops from the source edge switch to the destination host port
     * @return the path
     */
    public static ShadowPath of(ShadowPathId id, MacAddress shadowMac, List<PathHop> hops) {
        return new ShadowPath(id, shadowMac, hops);
    }

    public ShadowPathId id() {
        return id;
    }

    public MacAddress destination() {
        return id.destination();
    }

    public int index() {
        return id.index();
    }

    public MacAddress shadowMac() {
        return shadowMac;
    }

    /**
     * Hops from the source edge switch (first) to the destination edge switch (last, whose
     * out port is the host port).
     *
     * @return hops
     */
    public List<PathHop> hops() {
        return hops;
    }

    /**
     * The source edge switch.
     *
     * @return first hop's switch
     */
    public DeviceId source() {
        return hops.get(0).device();
    }

    /**
     * Every egress port the path uses, in order, including the final host port.
     *
     * @return egress connect points
     */
    public List<ConnectPoint> egressPorts() {
        ImmutableList.Builder<ConnectPoint> b = ImmutableList.builder();
        for (PathHop h : hops) {
            b.add(new ConnectPoint(h.device(), h.outPort()));
        }
        return b.build();
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ShadowPath)) {
            return false;
        }
        ShadowPath p = (ShadowPath) o;
        return id.equals(p.id) && shadowMac.equals(p.shadowMac) && hops.equals(p.hops);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, shadowMac, hops);
    }

    @Override
    public String toString() {
        return id + "(" + shadowMac + ")" + hops;
    }
}
