package org.planck.lab.ovs;

import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.RuleKind;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowPathId;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Which rule on which switch a packet between two hosts hits, hop by hop: the ingress rule at the
 * source edge (a per-flow rule if one steers it, else the host-pair default), the tree's transit
 * rule at each further switch, the delivery rule at the destination edge; same-edge traffic hits
 * the host-delivery rule only. Summed over a traffic pattern this is the exact flow-counter
 * increase every rule of the fabric must show, which is what proves the paths on real switches.
 */
public final class PathTraffic {
    private final RoutingPlan plan;
    private final Map<List<Object>, PlannedRule> byMatch = new HashMap<>();

    /**
     * @param plan   the routing plan installed
     * @param extras per-flow rules installed besides it
     */
    public PathTraffic(RoutingPlan plan, List<PlannedRule> extras) {
        this.plan = plan;
        plan.rules().forEach(r -> byMatch.put(r.matchKey(), r));
        extras.forEach(r -> byMatch.put(r.matchKey(), r));
    }

    /**
     * The rules a packet of {@code flow} from {@code src} to {@code dst} hits, in order.
     *
     * @param src  source host
     * @param dst  destination host
     * @param flow the packet's 5-tuple (per-flow rules match on it)
     * @return rules hit
     * @throws IllegalStateException if the installed rules do not deliver the packet
     */
    public List<PlannedRule> rulesHit(FabricHost src, FabricHost dst, FlowKey flow) {
        List<PlannedRule> hit = new ArrayList<>();
        if (src.edge().equals(dst.edge())) {
            hit.add(require(PlannedRule.hostDelivery(dst).matchKey(), src, dst));
            return hit;
        }
        OptionalInt def = plan.defaultPathIndex(src.mac(), dst.mac());
        if (def.isEmpty()) {
            throw new IllegalStateException("no default path " + src.mac() + " -> " + dst.mac());
        }
        PlannedRule perFlow = byMatch.get(keyOf(src.edge(), RuleKind.INGRESS_FLOW.priority(), dst.mac(), null, flow));
        PlannedRule ingress = perFlow != null ? perFlow
                : require(hostPairKey(src, dst), src, dst);
        hit.add(ingress);
        ShadowPathId tree = ingress.path().orElseThrow();
        ShadowPath path = plan.path(src.mac(), dst.mac(), tree.index())
                .orElseThrow(() -> new IllegalStateException("no path " + tree + " from " + src.edge()));
        List<PathHop> hops = path.hops();
        for (int i = 1; i < hops.size(); i++) {
            DeviceId d = hops.get(i).device();
            RuleKind kind = i == hops.size() - 1 ? RuleKind.SHADOW_DELIVERY : RuleKind.SHADOW_TRANSIT;
            hit.add(require(keyOf(d, kind.priority(), path.shadowMac(), null, null), src, dst));
        }
        return hit;
    }

    /**
     * Adds {@code packets} to every rule a packet of {@code flow} hits.
     *
     * @param expected counts per rule, updated
     * @param src      source host
     * @param dst      destination host
     * @param flow     5-tuple
     * @param packets  packet count
     */
    public void add(Map<PlannedRule, Long> expected, FabricHost src, FabricHost dst, FlowKey flow, long packets) {
        for (PlannedRule r : rulesHit(src, dst, flow)) {
            expected.merge(r, packets, Long::sum);
        }
    }

    /**
     * The path a flow takes now.
     *
     * @param src  source host
     * @param dst  destination host
     * @param flow 5-tuple
     * @return path, or empty for same-edge hosts
     */
    public Optional<ShadowPath> pathOf(FabricHost src, FabricHost dst, FlowKey flow) {
        if (src.edge().equals(dst.edge())) {
            return Optional.empty();
        }
        PlannedRule ingress = rulesHit(src, dst, flow).get(0);
        return plan.path(src.mac(), dst.mac(), ingress.path().orElseThrow().index());
    }

    private List<Object> hostPairKey(FabricHost src, FabricHost dst) {
        return keyOf(src.edge(), RuleKind.INGRESS_HOST_PAIR.priority(), dst.mac(), src.mac(), null);
    }

    private static List<Object> keyOf(DeviceId d, int priority, Object ethDst, Object ethSrc, Object flow) {
        List<Object> k = new ArrayList<>(5);
        k.add(d);
        k.add(priority);
        k.add(ethDst);
        k.add(ethSrc);
        k.add(flow);
        return k;
    }

    private PlannedRule require(List<Object> key, FabricHost src, FabricHost dst) {
        PlannedRule r = byMatch.get(key);
        if (r == null) {
            throw new IllegalStateException("no rule " + key + " on the way " + src.mac() + " -> " + dst.mac());
        }
        return r;
    }
}
