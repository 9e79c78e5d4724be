package org.planck.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedMap;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The part of a collector's forwarding map for one switch: which port frames to each
 * destination MAC leave on, the capacity of each monitored port, and how samples of this
 * switch are recognised (RSPAN VLAN) and where they come from (mirror port).
 */
public final class SwitchForwarding {
    private final DeviceId deviceId;
    private final VlanId rspanVlan;
    private final PortNumber mirrorPort;
    private final List<PortCapacity> ports;
    private final Map<MacAddress, PortNumber> entries;

    /**
     * Creates the switch's part of a forwarding map.
     *
     * @param deviceId   switch
     * @param rspanVlan  VLAN of its samples
     * @param mirrorPort its mirror port
     * @param ports      monitored ports with capacities
     * @param entries    destination MAC to egress port
     */
    public SwitchForwarding(DeviceId deviceId, VlanId rspanVlan, PortNumber mirrorPort,
                            List<PortCapacity> ports, Map<MacAddress, PortNumber> entries) {
        this.deviceId = checkNotNull(deviceId);
        this.rspanVlan = checkNotNull(rspanVlan);
        this.mirrorPort = checkNotNull(mirrorPort);
        this.ports = ImmutableList.sortedCopyOf(Comparator.comparingLong(p -> p.port().toLong()), ports);
        this.entries = ImmutableSortedMap.copyOf(entries, Comparator.comparingLong(MacAddress::toLong));
    }

    public DeviceId deviceId() {
        return deviceId;
    }

    public VlanId rspanVlan() {
        return rspanVlan;
    }

    public PortNumber mirrorPort() {
        return mirrorPort;
    }

    public List<PortCapacity> ports() {
        return ports;
    }

    /**
     * Destination MAC to egress port, sorted by MAC.
     *
     * @return entries
     */
    public Map<MacAddress, PortNumber> entries() {
        return entries;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SwitchForwarding)) {
            return false;
        }
        SwitchForwarding that = (SwitchForwarding) o;
        return deviceId.equals(that.deviceId) && rspanVlan.equals(that.rspanVlan)
                && mirrorPort.equals(that.mirrorPort) && ports.equals(that.ports) && entries.equals(that.entries);
    }

    @Override
    public int hashCode() {
        return Objects.hash(deviceId, rspanVlan, mirrorPort, ports, entries);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("device", deviceId).add("rspanVlan", rspanVlan)
                .add("mirrorPort", mirrorPort).add("ports", ports.size()).add("entries", entries.size()).toString();
    }
}
