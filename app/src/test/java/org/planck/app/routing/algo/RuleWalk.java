package org.planck.app.routing.algo;

import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.PlannedRule;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Follows planned rules hop by hop, as switches would: highest-priority matching rule, rewrite,
 * output, follow the link. Fails on no match, ambiguous match, loops and dead ends.
 */
final class RuleWalk {
    private final FabricGraph graph;
    private final Map<DeviceId, Map<MacAddress, List<PlannedRule>>> rules = new HashMap<>();

    RuleWalk(FabricGraph graph, Map<DeviceId, List<PlannedRule>> base) {
        this.graph = graph;
        base.forEach((d, l) -> l.forEach(this::add));
    }

    private void add(PlannedRule r) {
        rules.computeIfAbsent(r.device(), x -> new HashMap<>())
                .computeIfAbsent(r.ethDst(), x -> new ArrayList<>()).add(r);
    }

    /** Outcome of one walk. */
    static final class Result {
        final FabricHost deliveredTo;
        final MacAddress deliveredDst;
        final List<PathHop> hops;
        final List<MacAddress> dstOnEgress;

        Result(FabricHost deliveredTo, MacAddress deliveredDst, List<PathHop> hops, List<MacAddress> dstOnEgress) {
            this.deliveredTo = deliveredTo;
            this.deliveredDst = deliveredDst;
            this.hops = hops;
            this.dstOnEgress = dstOnEgress;
        }
    }

    /**
     * Sends a frame from a host.
     *
     * @param src  sending host
     * @param dst  destination MAC written by the sender (the real MAC)
     * @param flow 5-tuple of the frame
     * @return where it was delivered
     * @throws AssertionError on any forwarding fault
     */
    Result send(FabricHost src, MacAddress dst, FlowKey flow) {
        return send(src, dst, flow, List.of());
    }

    /**
     * Sends a frame from a host with extra rules installed (e.g. a per-flow move).
     *
     * @param src   sending host
     * @param dst   destination MAC written by the sender (the real MAC)
     * @param flow  5-tuple of the frame
     * @param extra rules on top of the base rules
     * @return where it was delivered
     * @throws AssertionError on any forwarding fault
     */
    Result send(FabricHost src, MacAddress dst, FlowKey flow, Collection<PlannedRule> extra) {
        DeviceId at = src.edge();
        MacAddress ethDst = dst;
        List<PathHop> hops = new ArrayList<>();
        List<MacAddress> dsts = new ArrayList<>();
        Set<Map.Entry<DeviceId, MacAddress>> seen = new HashSet<>();
        while (true) {
            if (!seen.add(new AbstractMap.SimpleImmutableEntry<>(at, ethDst))) {
                throw new AssertionError("loop at " + at + " for " + ethDst + " after " + hops);
            }
            PlannedRule r = match(at, src.mac(), ethDst, flow, extra);
            if (r.setEthDst().isPresent()) {
                ethDst = r.setEthDst().get();
            }
            hops.add(PathHop.of(at, r.outPort()));
            dsts.add(ethDst);
            ConnectPoint out = new ConnectPoint(at, r.outPort());
            Optional<FabricLink> link = graph.link(out);
            if (link.isPresent()) {
                at = link.get().dstDevice();
                continue;
            }
            for (FabricHost h : graph.hostsAt(at)) {
                if (h.port().equals(r.outPort())) {
                    return new Result(h, ethDst, hops, dsts);
                }
            }
            throw new AssertionError("rule " + r + " outputs to a dead port " + out);
        }
    }

    private PlannedRule match(DeviceId at, MacAddress ethSrc, MacAddress ethDst, FlowKey flow,
                              Collection<PlannedRule> extra) {
        PlannedRule best = null;
        List<PlannedRule> candidates = new ArrayList<>(
                rules.getOrDefault(at, Map.of()).getOrDefault(ethDst, List.of()));
        for (PlannedRule r : extra) {
            if (r.device().equals(at)) {
                candidates.add(r);
            }
        }
        for (PlannedRule r : candidates) {
            if (!r.ethDst().equals(ethDst)) {
                continue;
            }
            if (r.ethSrc().isPresent() && !r.ethSrc().get().equals(ethSrc)) {
                continue;
            }
            if (r.flow().isPresent() && !r.flow().get().equals(flow)) {
                continue;
            }
            if (best != null && best.priority() == r.priority()) {
                throw new AssertionError("ambiguous rules at " + at + ": " + best + " and " + r);
            }
            if (best == null || r.priority() > best.priority()) {
                best = r;
            }
        }
        if (best == null) {
            throw new AssertionError("no rule at " + at + " for eth_dst " + ethDst + " from " + ethSrc);
        }
        return best;
    }

    static PortNumber port(long n) {
        return PortNumber.portNumber(n);
    }
}
