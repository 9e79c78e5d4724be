package org.planck.lab.ovs;

import org.junit.Test;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.RuleKind;
import org.planck.api.fabric.ShadowPath;
import org.planck.app.routing.algo.FatTreeFabric;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;

/** The rules a packet hits hop by hop, which the OVS system test turns into expected counters. */
public class PathTrafficTest {
    private final RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4)
            .plan(FatTreeFabric.of(4).graph());
    private final FabricHost src = plan.graph().host(FatTreeFabric.hostMac(0, 0, 0)).orElseThrow();
    private final FabricHost dst = plan.graph().host(FatTreeFabric.hostMac(3, 1, 1)).orElseThrow();
    private final FabricHost neighbour = plan.graph().host(FatTreeFabric.hostMac(0, 0, 1)).orElseThrow();

    private static FlowKey tcp(FabricHost s, FabricHost d, int sport) {
        return FlowKey.of(s.ips().iterator().next(), d.ips().iterator().next(), 6, sport, 5201);
    }

    @Test
    public void interPodPacketHitsIngressThreeTransitsAndDeliveryAlongItsDefaultPath() {
        List<PlannedRule> hit = new PathTraffic(plan, List.of()).rulesHit(src, dst, tcp(src, dst, 40000));
        int index = plan.defaultPathIndex(src.mac(), dst.mac()).getAsInt();
        ShadowPath path = plan.path(src.mac(), dst.mac(), index).orElseThrow();
        assertEquals(5, hit.size());
        assertEquals(List.of(RuleKind.INGRESS_HOST_PAIR, RuleKind.SHADOW_TRANSIT, RuleKind.SHADOW_TRANSIT,
                             RuleKind.SHADOW_TRANSIT, RuleKind.SHADOW_DELIVERY),
                     hit.stream().map(PlannedRule::kind).collect(java.util.stream.Collectors.toList()));
        List<PathHop> hops = path.hops();
        for (int i = 0; i < hops.size(); i++) {
            assertEquals(hops.get(i).device(), hit.get(i).device());
            assertEquals(hops.get(i).outPort(), hit.get(i).outPort());
        }
        assertEquals(dst.mac(), hit.get(4).setEthDst().orElseThrow());
    }

    @Test
    public void perFlowRuleSteersOnlyItsFlow() {
        int def = plan.defaultPathIndex(src.mac(), dst.mac()).getAsInt();
        int other = (def + 1) % 4;
        PlannedRule steer = plan.flowRule(tcp(src, dst, 40000), src.mac(), dst.mac(), other);
        PathTraffic t = new PathTraffic(plan, List.of(steer));
        assertEquals(other, t.pathOf(src, dst, tcp(src, dst, 40000)).orElseThrow().index());
        assertEquals(steer, t.rulesHit(src, dst, tcp(src, dst, 40000)).get(0));
        assertEquals(def, t.pathOf(src, dst, tcp(src, dst, 40001)).orElseThrow().index());
        assertNotEquals(t.rulesHit(src, dst, tcp(src, dst, 40000)).get(2).device(),
                        t.rulesHit(src, dst, tcp(src, dst, 40001)).get(2).device());
    }

    @Test
    public void sameEdgePacketHitsHostDeliveryOnly() {
        List<PlannedRule> hit = new PathTraffic(plan, List.of()).rulesHit(src, neighbour, tcp(src, neighbour, 1));
        assertEquals(List.of(PlannedRule.hostDelivery(neighbour)), hit);
    }

    @Test
    public void expectedCountsAddUpPerRule() {
        PathTraffic t = new PathTraffic(plan, List.of());
        Map<PlannedRule, Long> expected = new HashMap<>();
        t.add(expected, src, dst, tcp(src, dst, 1), 3);
        t.add(expected, neighbour, dst, tcp(neighbour, dst, 1), 2);
        PlannedRule delivery = t.rulesHit(src, dst, tcp(src, dst, 1)).get(4);
        boolean sameTree = t.pathOf(src, dst, tcp(src, dst, 1)).orElseThrow().index()
                == t.pathOf(neighbour, dst, tcp(neighbour, dst, 1)).orElseThrow().index();
        assertEquals(sameTree ? 5L : 3L, (long) expected.get(delivery));
    }
}
