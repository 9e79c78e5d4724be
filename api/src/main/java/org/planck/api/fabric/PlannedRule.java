package org.planck.api.fabric;

import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.FlowKey;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One forwarding rule of a routing plan, as plain data: on {@link #device()} match
 * {@code eth_dst} (and, for ingress rules, {@code eth_src} or the flow's 5-tuple), optionally
 * rewrite {@code eth_dst}, then output on {@link #outPort()}. ONOS components translate it
 * one-to-one into a flow rule with {@link #priority()}.
 */
public final class PlannedRule {
    private final DeviceId device;
    private final RuleKind kind;
    private final MacAddress ethDst;
    private final MacAddress ethSrc;
    private final FlowKey flow;
    private final MacAddress setEthDst;
    private final PortNumber outPort;
    private final ShadowPathId path;

    private PlannedRule(DeviceId device, RuleKind kind, MacAddress ethDst, MacAddress ethSrc,
                        FlowKey flow, MacAddress setEthDst, PortNumber outPort, ShadowPathId path) {
        this.device = checkNotNull(device, "device");
        this.kind = checkNotNull(kind, "kind");
        this.ethDst = checkNotNull(ethDst, "ethDst");
        this.ethSrc = ethSrc;
        this.flow = flow;
        this.setEthDst = setEthDst;
        this.outPort = checkNotNull(outPort, "outPort");
        this.path = path;
    }

    /**
     * A tree hop: {@code eth_dst == shadowMac -> output}.
     *
     * @param device    switch
     * @param path      the tree
     * @param shadowMac its shadow MAC
     * @param outPort   next link's port
     * @return rule
     */
    public static PlannedRule shadowTransit(DeviceId device, ShadowPathId path, MacAddress shadowMac,
                                            PortNumber outPort) {
        return new PlannedRule(device, RuleKind.SHADOW_TRANSIT, shadowMac, null, null, null, outPort,
                               checkNotNull(path, "path"));
    }

    /**
     * Delivery at the destination's edge: {@code eth_dst == shadowMac -> set eth_dst = host MAC, output}.
     *
     * @param host      destination host
     * @param path      the tree
     * @param shadowMac its shadow MAC
     * @return rule
     */
    public static PlannedRule shadowDelivery(FabricHost host, ShadowPathId path, MacAddress shadowMac) {
        checkArgument(path.destination().equals(host.mac()), "path %s is not toward %s", path, host);
        return new PlannedRule(host.edge(), RuleKind.SHADOW_DELIVERY, shadowMac, null, null, host.mac(),
                               host.port(), path);
    }

    /**
     * Same-edge delivery of the real MAC: {@code eth_dst == host MAC -> output host port}.
     *
     * @param host host
     * @return rule
     */
    public static PlannedRule hostDelivery(FabricHost host) {
        return new PlannedRule(host.edge(), RuleKind.HOST_DELIVERY, host.mac(), null, null, null,
                               host.port(), null);
    }

    /**
     * Host-pair default at the source's edge:
     * {@code eth_src == src, eth_dst == dst -> set eth_dst = shadow, output first hop}.
     *
     * @param device    the source's edge switch
     * @param src       source host MAC
     * @param dst       destination host MAC
     * @param path      chosen tree
     * @param shadowMac its shadow MAC
     * @param outPort   first hop port
     * @return rule
     */
    public static PlannedRule ingressHostPair(DeviceId device, MacAddress src, MacAddress dst,
                                              ShadowPathId path, MacAddress shadowMac, PortNumber outPort) {
        checkArgument(path.destination().equals(dst), "path %s is not toward %s", path, dst);
        return new PlannedRule(device, RuleKind.INGRESS_HOST_PAIR, dst, checkNotNull(src, "src"), null,
                               checkNotNull(shadowMac, "shadowMac"), outPort, path);
    }

    /**
     * Per-flow placement at the source's edge (a TE move):
     * {@code eth_dst == dst and 5-tuple -> set eth_dst = shadow, output first hop}.
     *
     * @param device    the source's edge switch
     * @param flow      the flow's 5-tuple
     * @param dst       destination host MAC
     * @param path      chosen tree
     * @param shadowMac its shadow MAC
     * @param outPort   first hop port
     * @return rule
     */
    public static PlannedRule ingressFlow(DeviceId device, FlowKey flow, MacAddress dst,
                                          ShadowPathId path, MacAddress shadowMac, PortNumber outPort) {
        checkArgument(path.destination().equals(dst), "path %s is not toward %s", path, dst);
        return new PlannedRule(device, RuleKind.INGRESS_FLOW, dst, null, checkNotNull(flow, "flow"),
                               checkNotNull(shadowMac, "shadowMac"), outPort, path);
    }

    public DeviceId device() {
        return device;
    }

    public RuleKind kind() {
        return kind;
    }

    public int priority() {
        return kind.priority();
    }

    /**
     * The destination MAC matched: a shadow MAC for tree rules, a real host MAC otherwise.
     *
     * @return matched eth_dst
     */
    public MacAddress ethDst() {
        return ethDst;
    }

    /**
     * The source MAC matched (host-pair ingress rules only).
     *
     * @return eth_src, or empty
     */
    public Optional<MacAddress> ethSrc() {
        return Optional.ofNullable(ethSrc);
    }

    /**
     * The 5-tuple matched (per-flow ingress rules only).
     *
     * @return flow, or empty
     */
    public Optional<FlowKey> flow() {
        return Optional.ofNullable(flow);
    }

    /**
     * The destination MAC written before output, if the rule rewrites it.
     *
     * @return new eth_dst, or empty
     */
    public Optional<MacAddress> setEthDst() {
        return Optional.ofNullable(setEthDst);
    }

    public PortNumber outPort() {
        return outPort;
    }

    /**
     * The shadow path the rule belongs to or steers into (empty for same-edge host delivery).
     *
     * @return path id, or empty
     */
    public Optional<ShadowPathId> path() {
        return Optional.ofNullable(path);
    }

    /**
     * The identity of the rule's match on its switch: (device, priority, eth_dst, eth_src, 5-tuple).
     * A switch holds at most one rule per match, so a new rule with the same match key replaces
     * the old one (as an ONOS flow rule with the same selector and priority does).
     *
     * @return a value with equals/hashCode over the match fields
     */
    public List<Object> matchKey() {
        return Arrays.asList(device, kind.priority(), ethDst, ethSrc, flow);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PlannedRule)) {
            return false;
        }
        PlannedRule r = (PlannedRule) o;
        return kind == r.kind && device.equals(r.device) && ethDst.equals(r.ethDst)
                && Objects.equals(ethSrc, r.ethSrc) && Objects.equals(flow, r.flow)
                && Objects.equals(setEthDst, r.setEthDst) && outPort.equals(r.outPort)
                && Objects.equals(path, r.path);
    }

    @Override
    public int hashCode() {
        // Mixed, not 31-polynomial: DeviceId and MAC hashes share low-bit patterns, which would
        // pile these rules into few buckets of java.util hash sets.
        long h = ethDst.toLong() * 0x9E3779B97F4A7C15L;
        h ^= (ethSrc == null ? 0 : ethSrc.toLong()) * 0xC2B2AE3D27D4EB4FL;
        h ^= (setEthDst == null ? 0 : setEthDst.toLong()) * 0x165667B19E3779F9L;
        h ^= (device.hashCode() * 0xD6E8FEB86659FD93L) + outPort.toLong() * 31 + kind.ordinal();
        h ^= Objects.hashCode(flow) * 0x9E3779B97F4A7C15L + Objects.hashCode(path);
        h = (h ^ (h >>> 32)) * 0xD6E8FEB86659FD93L;
        return (int) (h ^ (h >>> 32));
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(kind.name()).append('@').append(device).append('[');
        if (ethSrc != null) {
            sb.append("eth_src=").append(ethSrc).append(',');
        }
        sb.append("eth_dst=").append(ethDst);
        if (flow != null) {
            sb.append(',').append(flow);
        }
        sb.append(" -> ");
        if (setEthDst != null) {
            sb.append("set eth_dst=").append(setEthDst).append(',');
        }
        return sb.append("out ").append(outPort).append(']').toString();
    }
}
