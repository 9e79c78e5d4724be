package org.planck.app.routing.algo;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
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
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * A k-ary fat tree (Al-Fares et al.): k pods of k/2 edge and k/2 aggregation switches,
 * (k/2)^2 core switches and k/2 hosts per edge switch, k^3/4 hosts in all (k=4: 16, k=8: 128,
 * k=16: 1,024).
 *
 * <p>Naming is deterministic. Device ids are {@code of:<10 hex tier><2 hex pod><4 hex index>}
 * with tier 1 = core, 2 = aggregation, 3 = edge. Host h (0-based) of edge e in pod p has IP
 * {@code 10.p.e.(h+2)} and MAC {@code 00:00:0a:p:e:(h+2)}. Ports: an edge switch has its hosts on
 * 1..k/2 and aggregation a on k/2+1+a; aggregation a has edge e on 1+e and core a*k/2+j on
 * k/2+1+j; a core has pod p on 1+p. Port k+1 is left free on every switch (the mirror port).</p>
 */
public final class FatTreeFabric {
    /** Default capacity of every link and host port: 10 Gb/s. */
    public static final long DEFAULT_CAPACITY_BPS = 10_000_000_000L;
    private static final int CORE = 1;
    private static final int AGGREGATION = 2;
    private static final int EDGE = 3;

    private final int k;
    private final FabricGraph graph;
    private final List<DeviceId> cores;
    private final List<DeviceId> aggregations;
    private final List<DeviceId> edges;
    private final Map<DeviceId, Integer> pods;

    private FatTreeFabric(int k, long linkCapacityBps, long hostCapacityBps) {
        this.k = k;
        int half = k / 2;
        FabricGraph.Builder b = FabricGraph.builder();
        ImmutableList.Builder<DeviceId> coreB = ImmutableList.builder();
        ImmutableList.Builder<DeviceId> aggB = ImmutableList.builder();
        ImmutableList.Builder<DeviceId> edgeB = ImmutableList.builder();
        ImmutableMap.Builder<DeviceId, Integer> podB = ImmutableMap.builder();
        for (int c = 0; c < half * half; c++) {
            b.addSwitch(coreId(c));
            coreB.add(coreId(c));
        }
        for (int p = 0; p < k; p++) {
            for (int i = 0; i < half; i++) {
                DeviceId agg = aggregationId(p, i);
                DeviceId edge = edgeId(p, i);
                b.addSwitch(agg).addSwitch(edge);
                aggB.add(agg);
                edgeB.add(edge);
                podB.put(agg, p).put(edge, p);
            }
            for (int e = 0; e < half; e++) {
                for (int a = 0; a < half; a++) {
                    b.addBidirectionalLink(FabricLink.of(edgeId(p, e), port(half + 1 + a),
                                                         aggregationId(p, a), port(1 + e), linkCapacityBps));
                }
                for (int h = 0; h < half; h++) {
                    b.addHost(FabricHost.of(hostMac(p, e, h), List.of(hostIp(p, e, h)),
                                            new ConnectPoint(edgeId(p, e), port(1 + h)), hostCapacityBps));
                }
            }
            for (int a = 0; a < half; a++) {
                for (int j = 0; j < half; j++) {
                    b.addBidirectionalLink(FabricLink.of(aggregationId(p, a), port(half + 1 + j),
                                                         coreId(a * half + j), port(1 + p), linkCapacityBps));
                }
            }
        }
        this.graph = b.build();
        this.cores = coreB.build();
        this.aggregations = aggB.build();
        this.edges = edgeB.build();
        this.pods = podB.build();
    }

    /**
     * A fat tree with 10 Gb/s links and host ports.
     *
     * @param k switch radix: even, 2 to 64
     * @return fabric
     */
    public static FatTreeFabric of(int k) {
        return of(k, DEFAULT_CAPACITY_BPS, DEFAULT_CAPACITY_BPS);
    }

    /**
     * A fat tree.
     *
     * @param k               switch radix: even, 2 to 64
     * @param linkCapacityBps capacity of switch-to-switch links, bits/s
     * @param hostCapacityBps capacity of host ports, bits/s
     * @return fabric
     */
    public static FatTreeFabric of(int k, long linkCapacityBps, long hostCapacityBps) {
        checkArgument(k >= 2 && k <= 64 && k % 2 == 0, "fat tree radix must be even and 2-64: %s", k);
        return new FatTreeFabric(k, linkCapacityBps, hostCapacityBps);
    }

    /**
     * The id of core switch c.
     *
     * @param c core index, 0 to (k/2)^2 - 1
     * @return device id
     */
    public static DeviceId coreId(int c) {
        return deviceId(CORE, 0, c);
    }

    /**
     * The id of aggregation switch a of pod p.
     *
     * @param pod pod
     * @param a   index within the pod
     * @return device id
     */
    public static DeviceId aggregationId(int pod, int a) {
        return deviceId(AGGREGATION, pod, a);
    }

    /**
     * The id of edge switch e of pod p.
     *
     * @param pod pod
     * @param e   index within the pod
     * @return device id
     */
    public static DeviceId edgeId(int pod, int e) {
        return deviceId(EDGE, pod, e);
    }

    /**
     * The MAC of host h on edge e of pod p.
     *
     * @param pod  pod
     * @param edge edge index within the pod
     * @param h    host index on the edge
     * @return MAC {@code 00:00:0a:pod:edge:h+2}
     */
    public static MacAddress hostMac(int pod, int edge, int h) {
        return MacAddress.valueOf(new byte[]{0, 0, 10, (byte) pod, (byte) edge, (byte) (h + 2)});
    }

    /**
     * The IPv4 address of host h on edge e of pod p.
     *
     * @param pod  pod
     * @param edge edge index within the pod
     * @param h    host index on the edge
     * @return {@code 10.pod.edge.h+2}
     */
    public static IpAddress hostIp(int pod, int edge, int h) {
        return IpAddress.valueOf(IpAddress.Version.INET, new byte[]{10, (byte) pod, (byte) edge, (byte) (h + 2)});
    }

    private static DeviceId deviceId(int tier, int pod, int index) {
        return DeviceId.deviceId(String.format("of:%010x%02x%04x", tier, pod, index));
    }

    private static PortNumber port(int n) {
        return PortNumber.portNumber(n);
    }

    public int k() {
        return k;
    }

    public FabricGraph graph() {
        return graph;
    }

    /**
     * Core switches by index.
     *
     * @return cores
     */
    public List<DeviceId> cores() {
        return cores;
    }

    /**
     * Aggregation switches, pod-major.
     *
     * @return aggregation switches
     */
    public List<DeviceId> aggregations() {
        return aggregations;
    }

    /**
     * Edge switches, pod-major.
     *
     * @return edge switches
     */
    public List<DeviceId> edges() {
        return edges;
    }

    /**
     * The pod of an edge or aggregation switch.
     *
     * @param device switch
     * @return pod, or empty for cores and unknown switches
     */
    public Optional<Integer> pod(DeviceId device) {
        return Optional.ofNullable(pods.get(device));
    }

    /**
     * Whether a switch is a core switch of this fabric.
     *
     * @param device switch
     * @return true for cores
     */
    public boolean isCore(DeviceId device) {
        return cores.contains(device);
    }
}
