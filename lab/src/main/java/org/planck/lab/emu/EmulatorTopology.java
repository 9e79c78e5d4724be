package org.planck.lab.emu;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSortedSet;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The emulator's {@code GET /v1/topology} answer as a {@link FabricGraph}, plus what the graph does
 * not hold: each switch's role and ports and the base link rate.
 */
public final class EmulatorTopology {
    private final FabricGraph graph;
    private final long linkBps;
    private final Map<DeviceId, String> roles;
    private final Map<DeviceId, Set<Long>> ports;

    private EmulatorTopology(FabricGraph graph, long linkBps, Map<DeviceId, String> roles,
                             Map<DeviceId, Set<Long>> ports) {
        this.graph = graph;
        this.linkBps = linkBps;
        this.roles = roles;
        this.ports = ports;
    }

    /**
     * Reads a topology answer.
     *
     * @param json the {@code GET /v1/topology} body
     * @return topology
     * @throws IllegalArgumentException if the body is not a consistent version-1 topology
     */
    public static EmulatorTopology parse(JsonNode json) {
        require(json != null && json.isObject(), "topology must be a JSON object");
        require(json.path("version").asInt(-1) == 1, "topology version must be 1");
        require(json.path("linkBps").isIntegralNumber() && json.get("linkBps").asLong() > 0,
                "linkBps must be a positive integer");
        long linkBps = json.get("linkBps").asLong();
        FabricGraph.Builder b = FabricGraph.builder();
        Map<DeviceId, String> roles = new TreeMap<>(FabricGraph.DEVICE_ORDER);
        Map<DeviceId, Set<Long>> ports = new TreeMap<>(FabricGraph.DEVICE_ORDER);
        for (JsonNode s : array(json, "switches")) {
            DeviceId d = device(s.path("id"), "switches[].id");
            require(s.path("role").isTextual(), "switch " + d + ": role must be a string");
            ImmutableSortedSet.Builder<Long> ps = ImmutableSortedSet.naturalOrder();
            for (JsonNode p : array(s, "ports")) {
                require(p.isIntegralNumber() && p.asLong() > 0, "switch " + d + ": ports must be positive integers");
                ps.add(p.asLong());
            }
            b.addSwitch(d);
            roles.put(d, s.get("role").asText());
            ports.put(d, ps.build());
        }
        for (JsonNode l : array(json, "links")) {
            DeviceId src = device(l.path("src"), "links[].src");
            DeviceId dst = device(l.path("dst"), "links[].dst");
            long cap = l.path("capacityBps").asLong(linkBps);
            b.addLink(FabricLink.of(src, port(l.path("srcPort"), "links[].srcPort"),
                                    dst, port(l.path("dstPort"), "links[].dstPort"), cap));
        }
        for (JsonNode h : array(json, "hosts")) {
            require(h.path("mac").isTextual() && h.path("ip").isTextual(), "hosts need mac and ip strings");
            MacAddress mac = MacAddress.valueOf(h.get("mac").asText());
            IpAddress ip = IpAddress.valueOf(h.get("ip").asText());
            DeviceId sw = device(h.path("switch"), "hosts[].switch");
            b.addHost(FabricHost.of(mac, List.of(ip), new ConnectPoint(sw, port(h.path("port"), "hosts[].port")),
                                    h.path("capacityBps").asLong(linkBps)));
        }
        return new EmulatorTopology(b.build(), linkBps, ImmutableMap.copyOf(roles), ImmutableMap.copyOf(ports));
    }

    private static Iterable<JsonNode> array(JsonNode parent, String field) {
        JsonNode a = parent.path(field);
        require(a.isArray(), field + " must be an array");
        return a;
    }

    private static DeviceId device(JsonNode n, String what) {
        require(n.isTextual() && n.asText().startsWith("of:"), what + " must be an of: device id");
        return DeviceId.deviceId(n.asText());
    }

    private static PortNumber port(JsonNode n, String what) {
        require(n.isIntegralNumber() && n.asLong() > 0, what + " must be a positive integer");
        return PortNumber.portNumber(n.asLong());
    }

    private static void require(boolean ok, String reason) {
        if (!ok) {
            throw new IllegalArgumentException(reason);
        }
    }

    public FabricGraph graph() {
        return graph;
    }

    /**
     * Base link rate of the fabric.
     *
     * @return bits per second
     */
    public long linkBps() {
        return linkBps;
    }

    /**
     * A switch's role: edge, aggregation, core or switch.
     *
     * @param device switch
     * @return role, or empty text if unknown
     */
    public String role(DeviceId device) {
        return roles.getOrDefault(device, "");
    }

    /**
     * A switch's ports.
     *
     * @param device switch
     * @return port numbers, ascending
     */
    public Set<Long> ports(DeviceId device) {
        return ports.getOrDefault(device, Set.of());
    }

    /**
     * The switch number n of a device id {@code of:%016x}: the RSPAN VLAN of its samples.
     *
     * @param device switch
     * @return number
     */
    public static long switchNumber(DeviceId device) {
        String s = device.toString();
        return Long.parseUnsignedLong(s.substring(s.indexOf(':') + 1), 16);
    }
}
