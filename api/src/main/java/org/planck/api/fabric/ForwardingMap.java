package org.planck.api.fabric;

import com.google.common.collect.ImmutableMap;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What a collector needs to attribute a sampled frame to the port it left on:
 * (switch, destination MAC) -> egress port, for shadow MACs (tree hops and deliveries) and real
 * host MACs (at the destination's edge, where delivery restores the real MAC before output).
 *
 * <p>Ingress rewrites are left out: their output depends on the source too, and the frame they
 * emit carries the shadow MAC, which the shadow entries already cover.</p>
 */
public final class ForwardingMap {
    private final Map<DeviceId, Map<MacAddress, PortNumber>> entries;

    private ForwardingMap(Map<DeviceId, Map<MacAddress, PortNumber>> entries) {
        this.entries = entries;
    }

    /**
     * Builds the map from a plan's rules.
     *
     * @param plan routing plan
     * @return forwarding map
     */
    public static ForwardingMap of(RoutingPlan plan) {
        return fromRules(plan.rulesByDevice());
    }

    /**
     * Builds the map from rules per switch.
     *
     * @param rulesByDevice rules per switch
     * @return forwarding map
     * @throws IllegalArgumentException if two rules send one MAC out of different ports of a switch
     */
    public static ForwardingMap fromRules(Map<DeviceId, List<PlannedRule>> rulesByDevice) {
        Map<DeviceId, Map<MacAddress, PortNumber>> out = new TreeMap<>(FabricGraph.DEVICE_ORDER);
        for (Map.Entry<DeviceId, List<PlannedRule>> e : rulesByDevice.entrySet()) {
            Map<MacAddress, PortNumber> m = new HashMap<>();
            for (PlannedRule r : e.getValue()) {
                if (r.kind().isIngress()) {
                    continue;
                }
                put(m, e.getKey(), r.ethDst(), r.outPort());
                // Delivery emits the real MAC: a sample taken on egress carries it.
                r.setEthDst().ifPresent(mac -> put(m, e.getKey(), mac, r.outPort()));
            }
            if (!m.isEmpty()) {
                out.put(e.getKey(), sortedByMac(m));
            }
        }
        return new ForwardingMap(ImmutableMap.copyOf(out));
    }

    private static Map<MacAddress, PortNumber> sortedByMac(Map<MacAddress, PortNumber> m) {
        Map<MacAddress, PortNumber> sorted = new TreeMap<>(FabricGraph.MAC_ORDER);
        sorted.putAll(m);
        return ImmutableMap.copyOf(sorted);
    }

    private static void put(Map<MacAddress, PortNumber> m, DeviceId device, MacAddress mac, PortNumber port) {
        PortNumber prev = m.putIfAbsent(mac, port);
        checkArgument(prev == null || prev.equals(port), "%s forwards %s to both %s and %s",
                      device, mac, prev, port);
    }

    /**
     * Switches with entries, ordered by id.
     *
     * @return entries per switch
     */
    public Map<DeviceId, Map<MacAddress, PortNumber>> entries() {
        return entries;
    }

    /**
     * Entries of one switch, ordered by MAC.
     *
     * @param device switch
     * @return MAC to egress port
     */
    public Map<MacAddress, PortNumber> entries(DeviceId device) {
        return entries.getOrDefault(device, ImmutableMap.of());
    }

    /**
     * The egress port of frames to a MAC at a switch.
     *
     * @param device switch
     * @param mac    destination MAC
     * @return port, or empty
     */
    public Optional<PortNumber> port(DeviceId device, MacAddress mac) {
        return Optional.ofNullable(entries(device).get(mac));
    }

    /**
     * Number of (switch, MAC) entries.
     *
     * @return size
     */
    public int size() {
        int n = 0;
        for (Map<MacAddress, PortNumber> m : entries.values()) {
            n += m.size();
        }
        return n;
    }
}
