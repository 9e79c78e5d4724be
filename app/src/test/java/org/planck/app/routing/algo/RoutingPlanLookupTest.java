package org.planck.app.routing.algo;

import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowPathId;
import org.planck.api.fabric.ShadowTree;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The plan's per-flow rule and usable trees, read from its arrays, against their definition by the
 * trees themselves (a tree carries a source edge's traffic if the edge is among its sources, and
 * the rule leaves on the tree's port there), on an intact fat tree and after failures that leave
 * trees with fewer sources and hosts with gaps in their path indices.
 */
public class RoutingPlanLookupTest {
    private final FatTreeFabric fabric = FatTreeFabric.of(4);
    private final ShadowRoutePlanner planner = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4);

    /** The definition: a rule only where the tree exists, reaches the source's edge, and the edges differ. */
    private static Optional<PlannedRule> expected(RoutingPlan plan, FlowKey flow, FabricHost s, FabricHost d,
                                                  int index) {
        if (s.edge().equals(d.edge()) || index < 0) {
            return Optional.empty();
        }
        Optional<ShadowTree> t = plan.tree(ShadowPathId.of(d.mac(), index));
        if (t.isEmpty() || !t.get().sources().contains(s.edge())) {
            return Optional.empty();
        }
        return Optional.of(PlannedRule.ingressFlow(s.edge(), flow, d.mac(), t.get().id(), t.get().shadowMac(),
                                                   t.get().outPort(s.edge()).orElseThrow()));
    }

    private static int checkEveryPair(RoutingPlan plan) {
        int rules = 0;
        int sport = 1;
        for (FabricHost s : plan.graph().hosts()) {
            for (FabricHost d : plan.graph().hosts()) {
                FlowKey flow = FlowKey.of(s.ips().iterator().next(), d.ips().iterator().next(), 6, sport++, 80);
                List<ShadowTree> usable = new ArrayList<>();
                for (ShadowTree t : plan.trees(d.mac())) {
                    if (t.sources().contains(s.edge())) {
                        usable.add(t);
                    }
                }
                assertEquals(s + " -> " + d, usable, plan.usableTrees(s.edge(), d.mac()));
                for (int index = -1; index <= 5; index++) {
                    Optional<PlannedRule> want = expected(plan, flow, s, d, index);
                    Optional<PlannedRule> got;
                    try {
                        got = Optional.of(plan.flowRule(flow, s.mac(), d.mac(), index));
                    } catch (IllegalArgumentException e) {
                        got = Optional.empty();
                    }
                    assertEquals(s + " -> " + d + " #" + index, want, got);
                    rules += got.isPresent() ? 1 : 0;
                }
            }
        }
        return rules;
    }

    @Test
    public void rulesAndUsableTreesMatchTheTreesOnAnIntactFabric() {
        RoutingPlan plan = planner.plan(fabric.graph());
        // 16 hosts, 14 of every host's 15 peers on another edge (two hosts per edge), 4 paths each.
        assertEquals(16 * 14 * 4, checkEveryPair(plan));
    }

    @Test
    public void rulesAndUsableTreesMatchTheTreesAfterFailures() {
        FabricGraph g = fabric.graph();
        FabricGraph.Builder b = g.toBuilder();
        // Both uplinks of edge (0,0), so its hosts are cut off from every other edge, and one
        // aggregation-core link, which trees through that core are rebuilt around.
        for (FabricLink l : g.egressLinks(FatTreeFabric.edgeId(0, 0))) {
            b.removeBidirectionalLink(l);
        }
        FabricLink aggCore = g.egressLinks(FatTreeFabric.aggregationId(1, 0)).stream()
                .filter(l -> l.dstDevice().equals(FatTreeFabric.coreId(0)))
                .findFirst().orElseThrow();
        b.removeBidirectionalLink(aggCore);
        RoutingPlan plan = planner.replan(planner.plan(g), b.build()).plan();
        int rules = checkEveryPair(plan);
        assertTrue("some rules remain: " + rules, rules > 0);
        assertTrue("the failures removed rules", rules < 16 * 14 * 4);
    }

    @Test
    public void unknownHostsAreRefused() {
        RoutingPlan plan = planner.plan(fabric.graph());
        FabricHost h = plan.graph().hosts().iterator().next();
        MacAddress stranger = MacAddress.valueOf("02:99:99:99:99:99");
        FlowKey flow = FlowKey.of(IpAddress.valueOf("10.9.9.9"), h.ips().iterator().next(), 6, 1, 80);
        for (MacAddress[] pair : new MacAddress[][]{{stranger, h.mac()}, {h.mac(), stranger}}) {
            try {
                plan.flowRule(flow, pair[0], pair[1], 0);
                throw new AssertionError("accepted an unknown host");
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage(), e.getMessage().startsWith("unknown host"));
            }
        }
        assertTrue(plan.usableTrees(h.edge(), stranger).isEmpty());
    }

    @Test
    public void pathIdHashIsObjectsHash() {
        for (FabricHost h : fabric.graph().hosts()) {
            for (int i = 0; i < 6; i++) {
                assertEquals(Objects.hash(h.mac(), i), ShadowPathId.of(h.mac(), i).hashCode());
            }
        }
    }
}
