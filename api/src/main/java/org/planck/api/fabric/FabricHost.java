package org.planck.api.fabric;

import com.google.common.collect.ImmutableSet;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.Collection;
import java.util.Objects;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * An end host attached to one edge switch port. A host is identified by its (real) MAC.
 */
public final class FabricHost {
    private final MacAddress mac;
    private final Set<IpAddress> ips;
    private final ConnectPoint location;
    private final long capacityBps;

    private FabricHost(MacAddress mac, Collection<IpAddress> ips, ConnectPoint location,
                       long capacityBps) {
        this.mac = checkNotNull(mac, "mac");
        checkArgument(!mac.isMulticast() && !mac.isBroadcast(), "host MAC must be unicast: %s", mac);
        checkArgument(!ShadowMacSpace.isShadow(mac), "host MAC %s lies in the shadow MAC space", mac);
        this.ips = ImmutableSet.copyOf(checkNotNull(ips, "ips"));
        this.location = checkNotNull(location, "location");
        checkArgument(capacityBps > 0, "capacity must be positive: %s", capacityBps);
        this.capacityBps = capacityBps;
    }

    /**
     * Creates a host.
     *
     * @param mac         the host's real MAC, unicast and outside the shadow MAC space
     * @param ips         the host's IP addresses (may be empty)
     * @param location    edge switch port the host is attached to
     * @param capacityBps capacity of the edge port toward the host, bits per second
     * @return the host
     */
    public static FabricHost of(MacAddress mac, Collection<IpAddress> ips, ConnectPoint location,
                                long capacityBps) {
        return new FabricHost(mac, ips, location, capacityBps);
    }

    public MacAddress mac() {
        return mac;
    }

    public Set<IpAddress> ips() {
        return ips;
    }

    public ConnectPoint location() {
        return location;
    }

    /**
     * The edge switch the host is attached to.
     *
     * @return edge switch
     */
    public DeviceId edge() {
        return location.deviceId();
    }

    /**
     * The edge switch port toward the host.
     *
     * @return port
     */
    public PortNumber port() {
        return location.port();
    }

    /**
     * Capacity of the edge switch port toward the host, bits per second.
     *
     * @return capacity
     */
    public long capacityBps() {
        return capacityBps;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FabricHost)) {
            return false;
        }
        FabricHost h = (FabricHost) o;
        return capacityBps == h.capacityBps && mac.equals(h.mac) && ips.equals(h.ips)
                && location.equals(h.location);
    }

    @Override
    public int hashCode() {
        return Objects.hash(mac, ips, location, capacityBps);
    }

    @Override
    public String toString() {
        return mac + "@" + location;
    }
}
