package org.planck.app.routing.algo;

import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.ForwardingMap;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowMacSpace;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowTree;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/**
 * Shadow-MAC routing on k=4 and k=8 fat trees, checked by following the planned rules.
 */
public class FatTreeRoutingTest {

    private static FlowKey flowOf(FabricHost s, FabricHost d, int sport) {
        IpAddress src = s.ips().iterator().next();
        IpAddress dst = d.ips().iterator().next();
        return FlowKey.of(src, dst, 6, sport, 5001);
    }

    /** Walks every (source, destination, path index) and every host-pair default. */
    private static void walkEverything(FatTreeFabric fabric, int paths) {
        RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), paths).plan(fabric.graph());
        ForwardingMap fmap = ForwardingMap.of(plan);
        RuleWalk base = new RuleWalk(fabric.graph(), plan.rulesByDevice());
        int expectedTrees = Math.min(paths, fabric.cores().size());
        int walks = 0;
        for (FabricHost d : fabric.graph().hosts()) {
            assertEquals("trees toward " + d, expectedTrees, plan.trees(d.mac()).size());
            for (FabricHost s : fabric.graph().hosts()) {
                if (s.equals(d)) {
                    continue;
                }
                FlowKey flow = flowOf(s, d, 40000);
                RuleWalk.Result r = base.send(s, d.mac(), flow);
                checkDelivered(r, d, fmap);
                if (s.edge().equals(d.edge())) {
                    assertEquals(1, r.hops.size());
                    assertFalse(plan.defaultPathIndex(s.mac(), d.mac()).isPresent());
                    continue;
                }
                OptionalInt def = plan.defaultPathIndex(s.mac(), d.mac());
                assertTrue(def.isPresent());
                assertEquals("default path of " + s + "->" + d,
                             plan.path(s.mac(), d.mac(), def.getAsInt()).get().hops(), r.hops);
                for (ShadowTree t : plan.trees(d.mac())) {
                    PlannedRule move = plan.flowRule(flow, s.mac(), d.mac(), t.index());
                    RuleWalk.Result m = base.send(s, d.mac(), flow, List.of(move));
                    checkDelivered(m, d, fmap);
                    ShadowPath p = t.path(s.edge()).get();
                    assertEquals(p.hops(), m.hops);
                    boolean samePod = fabric.pod(s.edge()).equals(fabric.pod(d.edge()));
                    assertEquals("hops of " + p, samePod ? 3 : 5, m.hops.size());
                    walks++;
                }
            }
        }
        int hosts = fabric.graph().hosts().size();
        int half = fabric.k() / 2;
        assertEquals(hosts * (hosts - half) * expectedTrees, walks);
    }

    private static void checkDelivered(RuleWalk.Result r, FabricHost d, ForwardingMap fmap) {
        assertEquals(d, r.deliveredTo);
        assertEquals("real MAC restored", d.mac(), r.deliveredDst);
        for (int i = 0; i < r.hops.size(); i++) {
            PathHop h = r.hops.get(i);
            assertEquals("forwarding map at " + h, h.outPort(),
                         fmap.port(h.device(), r.dstOnEgress.get(i)).orElse(null));
        }
    }

    @Test
    public void everyPairAndPathDeliversOnK4() {
        walkEverything(FatTreeFabric.of(4), 4);
    }

    @Test
    public void everyPairAndPathDeliversOnK8() {
        walkEverything(FatTreeFabric.of(8), 4);
    }

    @Test
    public void everyPairAndAllCoresDeliverOnK8() {
        walkEverything(FatTreeFabric.of(8), 16);
    }

    @Test
    public void treesGoThroughOneDistinctCoreWithConsistentAggregation() {
        for (int k : new int[]{4, 8}) {
            FatTreeFabric f = FatTreeFabric.of(k);
            int paths = k == 4 ? 4 : 8;
            RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), paths).plan(f.graph());
            Set<DeviceId> coresUsedAsFirstTree = new HashSet<>();
            for (FabricHost d : f.graph().hosts()) {
                Set<DeviceId> cores = new HashSet<>();
                for (ShadowTree t : plan.trees(d.mac())) {
                    List<DeviceId> inTree = new ArrayList<>();
                    for (DeviceId sw : t.nextLinks().keySet()) {
                        if (f.isCore(sw)) {
                            inTree.add(sw);
                        }
                    }
                    assertEquals("cores of " + t, 1, inTree.size());
                    DeviceId core = inTree.get(0);
                    assertTrue("core reused by " + t, cores.add(core));
                    if (t.index() == 0) {
                        coresUsedAsFirstTree.add(core);
                    }
                    // Every path, intra-pod ones included, climbs to the aggregation switch of that core's group.
                    int group = f.cores().indexOf(core) / (k / 2);
                    for (DeviceId src : t.sources()) {
                        ShadowPath p = t.path(src).get();
                        DeviceId agg = p.hops().get(1).device();
                        assertEquals("aggregation of " + p, String.format("%04x", group),
                                     agg.toString().substring(agg.toString().length() - 4));
                    }
                    assertEquals(f.edges().size() - 1, t.sources().size());
                }
            }
            // Destinations spread their first trees over the cores.
            assertTrue("first trees use " + coresUsedAsFirstTree.size() + " cores",
                       coresUsedAsFirstTree.size() >= f.cores().size() / 2);
        }
    }

    @Test
    public void interPodPathsOfDistinctGroupsAreLinkDisjoint() {
        FatTreeFabric f = FatTreeFabric.of(8);
        RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4).plan(f.graph());
        for (FabricHost d : f.graph().hosts()) {
            List<ShadowTree> trees = plan.trees(d.mac());
            for (DeviceId src : f.edges()) {
                if (f.pod(src).equals(f.pod(d.edge()))) {
                    continue;
                }
                for (int i = 0; i < trees.size(); i++) {
                    for (int j = i + 1; j < trees.size(); j++) {
                        Set<PathHop> a = new HashSet<>(trees.get(i).path(src).get().hops());
                        a.retainAll(trees.get(j).path(src).get().hops());
                        assertTrue("paths " + i + "," + j + " from " + src + " share " + a, a.isEmpty()
                                || a.equals(Set.of(trees.get(i).path(src).get().hops().get(4))));
                    }
                }
            }
        }
    }

    @Test
    public void shadowMacsAreUniqueLocalUnicast() {
        FatTreeFabric f = FatTreeFabric.of(8);
        RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4).plan(f.graph());
        Set<MacAddress> macs = new HashSet<>();
        for (ShadowTree t : plan.trees()) {
            assertTrue(macs.add(t.shadowMac()));
            assertTrue(ShadowMacSpace.isShadow(t.shadowMac()));
            assertFalse(t.shadowMac().isMulticast());
            assertTrue("locally administered", (t.shadowMac().toBytes()[0] & 0x02) != 0);
            assertFalse(f.graph().host(t.shadowMac()).isPresent());
        }
        assertEquals(128 * 4, macs.size());
    }

    @Test
    public void planIsDeterministic() {
        FatTreeFabric f = FatTreeFabric.of(4);
        RoutingPlan a = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4).plan(f.graph());
        RoutingPlan b = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4).plan(FatTreeFabric.of(4).graph());
        assertEquals(a.rules(), b.rules());
        assertNotEquals(0, a.ruleCount());
    }

    @Test
    public void ruleCountsMatchTheTreeShape() {
        FatTreeFabric f = FatTreeFabric.of(4);
        RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 2).plan(f.graph());
        int hosts = 16;
        // Each tree: 7 other edges + 4 aggregation (one per pod) + 1 core, plus delivery at the root.
        int treeRules = hosts * 2 * (7 + 4 + 1 + 1);
        int delivery = hosts;
        int ingress = hosts * (hosts - 2);
        assertEquals(treeRules + delivery + ingress, plan.ruleCount());
        for (FabricLink l : f.graph().links()) {
            assertTrue(f.graph().portCapacityBps(l.src()).isPresent());
        }
    }
}
