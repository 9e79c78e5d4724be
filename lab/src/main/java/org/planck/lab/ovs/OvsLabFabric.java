package org.planck.lab.ovs;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.net.DeviceId;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One of the OVS lab's two fabrics as the experiment sees it, named as
 * {@code src/test/system/ovs/experiment.sh} builds it: the k=4 fat tree of 20 bridges, or one
 * non-blocking bridge with all 16 hosts (Optimal). Switch numbers are small (fat tree: core c is
 * 1+c, aggregation (p,a) 5+2p+a, edge (p,e) 13+2p+e; the single bridge 21), so a switch's number
 * is both its datapath id and its RSPAN VLAN, as on the emulated fabric.
 */
public final class OvsLabFabric {
    /** Number of the single non-blocking bridge. */
    public static final int SINGLE_SWITCH_NUMBER = 21;
    private static final int K = 4;
    private static final int HALF = K / 2;

    /** A bridge. */
    public static final class Bridge {
        final DeviceId device;
        final String role;
        final int ports;
        final String name;

        Bridge(int number, String role, int ports, String name) {
            this.device = OvsLabFabric.device(number);
            this.role = role;
            this.ports = ports;
            this.name = name;
        }

        public DeviceId device() {
            return device;
        }

        /** Bridge name, which also names its mirror veth ({@code <name>m}). */
        public String name() {
            return name;
        }
    }

    /** A host: a network namespace with one interface. */
    public static final class Host {
        final String mac;
        final String ip;
        final DeviceId device;
        final int port;
        final String netns;

        Host(String mac, String ip, DeviceId device, int port, String netns) {
            this.mac = mac;
            this.ip = ip;
            this.device = device;
            this.port = port;
            this.netns = netns;
        }

        public String mac() {
            return mac;
        }

        public String ip() {
            return ip;
        }

        public String netns() {
            return netns;
        }
    }

    private final long linkBps;
    private final List<Bridge> bridges;
    private final List<long[]> links;
    private final List<Host> hosts;

    private OvsLabFabric(long linkBps, List<Bridge> bridges, List<long[]> links, List<Host> hosts) {
        checkArgument(linkBps > 0, "link rate must be positive");
        this.linkBps = linkBps;
        this.bridges = List.copyOf(bridges);
        this.links = List.copyOf(links);
        this.hosts = List.copyOf(hosts);
    }

    /**
     * Device id of switch number n.
     *
     * @param n number
     * @return {@code of:%016x}
     */
    public static DeviceId device(int n) {
        return DeviceId.deviceId(String.format(Locale.ROOT, "of:%016x", n));
    }

    static String mac(int p, int e, int h) {
        return String.format(Locale.ROOT, "00:00:0a:%02x:%02x:%02x", p, e, h + 2);
    }

    static String ip(int p, int e, int h) {
        return "10." + p + "." + e + "." + (h + 2);
    }

    /**
     * The fat tree: edge (p,e) port 3+a to aggregation (p,a) port 1+e, aggregation (p,a) port 3+j
     * to core a*2+j port 1+p, host h of edge (p,e) on port 1+h in netns {@code <P>h<p><e><h>}.
     *
     * @param prefix  name prefix of the run
     * @param linkBps shaped rate of every link
     * @return fabric
     */
    public static OvsLabFabric fatTree(String prefix, long linkBps) {
        checkNotNull(prefix, "prefix");
        List<Bridge> bridges = new ArrayList<>();
        List<long[]> links = new ArrayList<>();
        List<Host> hosts = new ArrayList<>();
        for (int c = 0; c < K; c++) {
            bridges.add(new Bridge(1 + c, "core", K, prefix + "c" + c));
        }
        for (int p = 0; p < K; p++) {
            for (int a = 0; a < HALF; a++) {
                bridges.add(new Bridge(5 + 2 * p + a, "aggregation", K, prefix + "a" + p + a));
            }
        }
        for (int p = 0; p < K; p++) {
            for (int e = 0; e < HALF; e++) {
                bridges.add(new Bridge(13 + 2 * p + e, "edge", K, prefix + "e" + p + e));
            }
        }
        for (int p = 0; p < K; p++) {
            for (int e = 0; e < HALF; e++) {
                int edge = 13 + 2 * p + e;
                for (int a = 0; a < HALF; a++) {
                    addBoth(links, edge, HALF + 1 + a, 5 + 2 * p + a, 1 + e);
                }
                for (int h = 0; h < HALF; h++) {
                    hosts.add(new Host(mac(p, e, h), ip(p, e, h), device(edge), 1 + h,
                                       prefix + "h" + p + e + h));
                }
            }
            for (int a = 0; a < HALF; a++) {
                for (int j = 0; j < HALF; j++) {
                    addBoth(links, 5 + 2 * p + a, HALF + 1 + j, 1 + a * HALF + j, 1 + p);
                }
            }
        }
        return new OvsLabFabric(linkBps, bridges, links, hosts);
    }

    /**
     * One bridge {@code <P>o}, switch number {@value #SINGLE_SWITCH_NUMBER}, with host i (the fat
     * tree's hosts in the same order, same MACs and IPs) on port 1+i in netns {@code <P>o<p><e><h>}.
     *
     * @param prefix  name prefix of the run
     * @param linkBps shaped rate of every host link
     * @return fabric
     */
    public static OvsLabFabric singleBridge(String prefix, long linkBps) {
        checkNotNull(prefix, "prefix");
        int hostsCount = K * K * K / 4;
        Bridge b = new Bridge(SINGLE_SWITCH_NUMBER, "switch", hostsCount, prefix + "o");
        List<Host> hosts = new ArrayList<>();
        int port = 1;
        for (int p = 0; p < K; p++) {
            for (int e = 0; e < HALF; e++) {
                for (int h = 0; h < HALF; h++) {
                    hosts.add(new Host(mac(p, e, h), ip(p, e, h), b.device, port++, prefix + "o" + p + e + h));
                }
            }
        }
        return new OvsLabFabric(linkBps, List.of(b), List.of(), hosts);
    }

    private static void addBoth(List<long[]> links, int a, int aPort, int b, int bPort) {
        links.add(new long[]{a, aPort, b, bPort});
        links.add(new long[]{b, bPort, a, aPort});
    }

    public long linkBps() {
        return linkBps;
    }

    public List<Bridge> bridges() {
        return bridges;
    }

    public List<Host> hosts() {
        return hosts;
    }

    /**
     * The host with a MAC.
     *
     * @param mac MAC text (any case)
     * @return host, or null
     */
    public Host host(String mac) {
        for (Host h : hosts) {
            if (h.mac.equalsIgnoreCase(mac)) {
                return h;
            }
        }
        return null;
    }

    /**
     * The {@code GET /v1/topology} answer (docs/protocol/emulator-control-v1.md).
     *
     * @param mapper mapper
     * @return body
     */
    public ObjectNode topologyJson(ObjectMapper mapper) {
        ObjectNode t = mapper.createObjectNode();
        t.put("version", 1);
        t.put("linkBps", linkBps);
        ArrayNode sw = t.putArray("switches");
        for (Bridge b : bridges) {
            ObjectNode s = sw.addObject();
            s.put("id", b.device.toString());
            s.put("role", b.role);
            ArrayNode ps = s.putArray("ports");
            for (int p = 1; p <= b.ports; p++) {
                ps.add(p);
            }
        }
        ArrayNode ls = t.putArray("links");
        for (long[] l : links) {
            ObjectNode o = ls.addObject();
            o.put("src", device((int) l[0]).toString());
            o.put("srcPort", l[1]);
            o.put("dst", device((int) l[2]).toString());
            o.put("dstPort", l[3]);
            o.put("capacityBps", linkBps);
        }
        ArrayNode hs = t.putArray("hosts");
        for (Host h : hosts) {
            ObjectNode o = hs.addObject();
            o.put("mac", h.mac);
            o.put("ip", h.ip);
            o.put("switch", h.device.toString());
            o.put("port", h.port);
        }
        return t;
    }
}
