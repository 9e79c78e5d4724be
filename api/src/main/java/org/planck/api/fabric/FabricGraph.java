package org.planck.api.fabric;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * An immutable snapshot of a switching fabric: switches, directed links between them and the
 * hosts attached to edge ports.
 *
 * <p>Switches are ordered by device id string; each switch also has a dense index
 * ({@link #index(DeviceId)}) so algorithms can use arrays. Links out of and into a switch are
 * ordered by port number. These orders make every algorithm over the graph deterministic.</p>
 */
public final class FabricGraph {
    /** Orders devices by their id string. */
    public static final Comparator<DeviceId> DEVICE_ORDER = Comparator.comparing(DeviceId::toString);
    /** Orders MACs numerically. */
    public static final Comparator<MacAddress> MAC_ORDER = Comparator.comparingLong(MacAddress::toLong);
    private static final Comparator<FabricLink> LINK_ORDER =
            Comparator.comparing((FabricLink l) -> l.srcPort().toLong())
                    .thenComparing(l -> l.dstDevice().toString())
                    .thenComparing(l -> l.dstPort().toLong());

    private final List<DeviceId> switches;
    private final Map<DeviceId, Integer> indexOf;
    private final List<List<FabricLink>> egress;
    private final List<List<FabricLink>> ingress;
    private final Map<ConnectPoint, FabricLink> linkByEgress;
    private final List<FabricLink> links;
    private final Map<MacAddress, FabricHost> hosts;
    private final List<List<FabricHost>> hostsAt;
    private final Map<IpAddress, FabricHost> hostByIp;

    private FabricGraph(Builder b) {
        TreeSet<DeviceId> sorted = new TreeSet<>(DEVICE_ORDER);
        sorted.addAll(b.switches);
        this.switches = ImmutableList.copyOf(sorted);
        Map<DeviceId, Integer> idx = new HashMap<>();
        for (int i = 0; i < switches.size(); i++) {
            idx.put(switches.get(i), i);
        }
        // Guava maps smear hashes: DeviceId/ConnectPoint string hashes collide badly in java.util.HashMap.
        this.indexOf = ImmutableMap.copyOf(idx);

        List<List<FabricLink>> out = new ArrayList<>();
        List<List<FabricLink>> in = new ArrayList<>();
        for (int i = 0; i < switches.size(); i++) {
            out.add(new ArrayList<>());
            in.add(new ArrayList<>());
        }
        Map<ConnectPoint, FabricLink> byEgress = new HashMap<>();
        for (FabricLink l : b.links.values()) {
            Integer s = idx.get(l.srcDevice());
            Integer d = idx.get(l.dstDevice());
            checkArgument(s != null, "link %s leaves unknown switch", l);
            checkArgument(d != null, "link %s enters unknown switch", l);
            out.get(s).add(l);
            in.get(d).add(l);
            byEgress.put(l.src(), l);
        }
        ImmutableList.Builder<List<FabricLink>> outB = ImmutableList.builder();
        ImmutableList.Builder<List<FabricLink>> inB = ImmutableList.builder();
        ImmutableList.Builder<FabricLink> all = ImmutableList.builder();
        for (int i = 0; i < switches.size(); i++) {
            out.get(i).sort(LINK_ORDER);
            in.get(i).sort(Comparator.comparing((FabricLink l) -> l.dstPort().toLong()));
            outB.add(ImmutableList.copyOf(out.get(i)));
            inB.add(ImmutableList.copyOf(in.get(i)));
            all.addAll(out.get(i));
        }
        this.egress = outB.build();
        this.ingress = inB.build();
        this.links = all.build();
        this.linkByEgress = ImmutableMap.copyOf(byEgress);

        List<List<FabricHost>> at = new ArrayList<>();
        for (int i = 0; i < switches.size(); i++) {
            at.add(new ArrayList<>());
        }
        Map<IpAddress, FabricHost> byIp = new HashMap<>();
        Map<ConnectPoint, FabricHost> byLocation = new HashMap<>();
        for (FabricHost h : b.hosts.values()) {
            Integer e = idx.get(h.edge());
            checkArgument(e != null, "host %s attached to unknown switch", h);
            checkArgument(!byEgress.containsKey(h.location()),
                          "host %s attached to a port that carries a switch link", h);
            FabricHost other = byLocation.put(h.location(), h);
            checkArgument(other == null, "hosts %s and %s share a port", h, other);
            for (IpAddress ip : h.ips()) {
                FabricHost dup = byIp.put(ip, h);
                checkArgument(dup == null, "hosts %s and %s share IP %s", h, dup, ip);
            }
            at.get(e).add(h);
        }
        ImmutableList.Builder<List<FabricHost>> atB = ImmutableList.builder();
        for (List<FabricHost> l : at) {
            l.sort(Comparator.comparing((FabricHost h) -> h.port().toLong()));
            atB.add(ImmutableList.copyOf(l));
        }
        this.hostsAt = atB.build();
        this.hostByIp = ImmutableMap.copyOf(byIp);
        Map<MacAddress, FabricHost> sortedHosts = new TreeMap<>(MAC_ORDER);
        sortedHosts.putAll(b.hosts);
        this.hosts = ImmutableMap.copyOf(sortedHosts);
    }

    /**
     * A builder for an empty graph.
     *
     * @return builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding this graph's switches, links and hosts, for deriving a changed graph.
     *
     * @return builder
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.switches.addAll(switches);
        links.forEach(l -> b.links.put(l.src(), l));
        b.hosts.putAll(hosts);
        return b;
    }

    /**
     * All switches, ordered by device id string.
     *
     * @return switches
     */
    public List<DeviceId> switches() {
        return switches;
    }

    /**
     * Whether the graph holds a switch.
     *
     * @param device device id
     * @return true if present
     */
    public boolean hasSwitch(DeviceId device) {
        return indexOf.containsKey(device);
    }

    /**
     * The dense index of a switch: its position in {@link #switches()}.
     *
     * @param device a switch of this graph
     * @return index in [0, switches().size())
     * @throws IllegalArgumentException if the switch is not in the graph
     */
    public int index(DeviceId device) {
        Integer i = indexOf.get(device);
        checkArgument(i != null, "unknown switch %s", device);
        return i;
    }

    /**
     * All directed links, grouped by source switch order, then port.
     *
     * @return links
     */
    public List<FabricLink> links() {
        return links;
    }

    /**
     * Links leaving a switch (its neighbours), ordered by egress port.
     *
     * @param device a switch of this graph
     * @return outgoing links
     */
    public List<FabricLink> egressLinks(DeviceId device) {
        return egress.get(index(device));
    }

    /**
     * Links leaving the switch with the given index.
     *
     * @param index dense switch index
     * @return outgoing links
     */
    public List<FabricLink> egressLinks(int index) {
        return egress.get(index);
    }

    /**
     * Links entering a switch, ordered by ingress port.
     *
     * @param device a switch of this graph
     * @return incoming links
     */
    public List<FabricLink> ingressLinks(DeviceId device) {
        return ingress.get(index(device));
    }

    /**
     * Links entering the switch with the given index.
     *
     * @param index dense switch index
     * @return incoming links
     */
    public List<FabricLink> ingressLinks(int index) {
        return ingress.get(index);
    }

    /**
     * The link leaving a given switch port.
     *
     * @param egressPoint switch port
     * @return the link, or empty if the port carries no switch link
     */
    public Optional<FabricLink> link(ConnectPoint egressPoint) {
        return Optional.ofNullable(linkByEgress.get(egressPoint));
    }

    /**
     * All hosts, ordered by MAC.
     *
     * @return hosts
     */
    public Collection<FabricHost> hosts() {
        return hosts.values();
    }

    /**
     * A host by its real MAC.
     *
     * @param mac host MAC
     * @return the host, or empty
     */
    public Optional<FabricHost> host(MacAddress mac) {
        return Optional.ofNullable(hosts.get(mac));
    }

    /**
     * A host by one of its IP addresses.
     *
     * @param ip address
     * @return the host, or empty
     */
    public Optional<FabricHost> hostByIp(IpAddress ip) {
        return Optional.ofNullable(hostByIp.get(ip));
    }

    /**
     * Hosts attached to a switch, ordered by port.
     *
     * @param device a switch of this graph
     * @return hosts, empty for non-edge switches
     */
    public List<FabricHost> hostsAt(DeviceId device) {
        return hostsAt.get(index(device));
    }

    /**
     * Hosts attached to the switch with the given index, ordered by port.
     *
     * @param index dense switch index
     * @return hosts
     */
    public List<FabricHost> hostsAt(int index) {
        return hostsAt.get(index);
    }

    /**
     * Capacity of a switch egress port: a link's capacity, or a host port's capacity.
     *
     * @param port switch port
     * @return capacity in bits/s, or empty if the port is neither a link nor a host port
     */
    public Optional<Long> portCapacityBps(ConnectPoint port) {
        FabricLink l = linkByEgress.get(port);
        if (l != null) {
            return Optional.of(l.capacityBps());
        }
        Integer i = indexOf.get(port.deviceId());
        if (i != null) {
            for (FabricHost h : hostsAt.get(i)) {
                if (h.port().equals(port.port())) {
                    return Optional.of(h.capacityBps());
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FabricGraph)) {
            return false;
        }
        FabricGraph g = (FabricGraph) o;
        return switches.equals(g.switches) && links.equals(g.links) && hosts.equals(g.hosts);
    }

    @Override
    public int hashCode() {
        return switches.hashCode() * 31 + links.hashCode() * 17 + hosts.hashCode();
    }

    @Override
    public String toString() {
        return "FabricGraph{switches=" + switches.size() + ", links=" + links.size()
                + ", hosts=" + hosts.size() + "}";
    }

    /**
     * Builds a {@link FabricGraph}. Validation (links and hosts on known switches, one link per
     * egress port, one host per port, unique host IPs) happens in {@link #build()}.
     */
    public static final class Builder {
        private final Set<DeviceId> switches = new LinkedHashSet<>();
        private final Map<ConnectPoint, FabricLink> links = new LinkedHashMap<>();
        private final Map<MacAddress, FabricHost> hosts = new HashMap<>();

        private Builder() {
        }

        /**
         * Adds a switch (idempotent).
         *
         * @param device device id
         * @return this builder
         */
        public Builder addSwitch(DeviceId device) {
            switches.add(checkNotNull(device, "device"));
            return this;
        }

        /**
         * Adds a directed link; a second link from the same egress port is rejected.
         *
         * @param link link
         * @return this builder
         */
        public Builder addLink(FabricLink link) {
            checkNotNull(link, "link");
            FabricLink prev = links.putIfAbsent(link.src(), link);
            checkArgument(prev == null || prev.equals(link),
                          "port %s already carries link %s", link.src(), prev);
            return this;
        }

        /**
         * Adds a link and its reverse.
         *
         * @param link one direction
         * @return this builder
         */
        public Builder addBidirectionalLink(FabricLink link) {
            return addLink(link).addLink(link.reversed());
        }

        /**
         * Adds (or replaces, by MAC) a host.
         *
         * @param host host
         * @return this builder
         */
        public Builder addHost(FabricHost host) {
            checkNotNull(host, "host");
            hosts.put(host.mac(), host);
            return this;
        }

        /**
         * Removes the link leaving a port, if any.
         *
         * @param egressPoint switch port
         * @return this builder
         */
        public Builder removeLink(ConnectPoint egressPoint) {
            links.remove(egressPoint);
            return this;
        }

        /**
         * Removes a link and its reverse, if present.
         *
         * @param link one direction
         * @return this builder
         */
        public Builder removeBidirectionalLink(FabricLink link) {
            links.remove(link.src());
            links.remove(link.dst());
            return this;
        }

        /**
         * Removes a switch with its links and hosts.
         *
         * @param device device id
         * @return this builder
         */
        public Builder removeSwitch(DeviceId device) {
            switches.remove(device);
            links.values().removeIf(l -> l.srcDevice().equals(device) || l.dstDevice().equals(device));
            hosts.values().removeIf(h -> h.edge().equals(device));
            return this;
        }

        /**
         * Removes a host.
         *
         * @param mac host MAC
         * @return this builder
         */
        public Builder removeHost(MacAddress mac) {
            hosts.remove(mac);
            return this;
        }

        /**
         * Builds the graph.
         *
         * @return immutable graph
         * @throws IllegalArgumentException if links or hosts are inconsistent
         */
        public FabricGraph build() {
            return new FabricGraph(this);
        }
    }
}
