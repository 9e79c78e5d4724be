package org.planck.app.routing.algo;

import org.junit.Test;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowTree;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

/**
 * Shadow trees on graphs that are not fat trees.
 */
public class GeneralTopologyRoutingTest {

    /** Walks every (source, destination, tree) and the defaults; returns the number of walks. */
    static int walkAll(FabricGraph g, RoutingPlan plan) {
        RuleWalk walk = new RuleWalk(g, plan.rulesByDevice());
        int walks = 0;
        for (FabricHost d : g.hosts()) {
            for (FabricHost s : g.hosts()) {
                if (s.equals(d)) {
                    continue;
                }
                FlowKey flow = FlowKey.of(s.ips().iterator().next(), d.ips().iterator().next(), 17, 1000, 2000);
                RuleWalk.Result r = walk.send(s, d.mac(), flow);
                assertEquals(d, r.deliveredTo);
                assertEquals(d.mac(), r.deliveredDst);
                if (s.edge().equals(d.edge())) {
                    continue;
                }
                for (ShadowTree t : plan.usableTrees(s.edge(), d.mac())) {
                    PlannedRule move = plan.flowRule(flow, s.mac(), d.mac(), t.index());
                    RuleWalk.Result m = walk.send(s, d.mac(), flow, List.of(move));
                    assertEquals(d, m.deliveredTo);
                    assertEquals(d.mac(), m.deliveredDst);
                    assertEquals(t.path(s.edge()).get().hops(), m.hops);
                    assertTrue("path longer than the graph", m.hops.size() <= g.switches().size());
                    walks++;
                }
            }
        }
        return walks;
    }

    private static Set<FabricLink> linksOf(ShadowTree t) {
        return new HashSet<>(t.nextLinks().values());
    }

    @Test
    public void ringGivesDistinctTreesAndDelivers() {
        FabricGraph g = Fabrics.ring(6);
        RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4).plan(g);
        for (FabricHost d : g.hosts()) {
            List<ShadowTree> trees = plan.trees(d.mac());
            assertTrue("at least two trees toward " + d, trees.size() >= 2);
            for (int i = 0; i < trees.size(); i++) {
                assertEquals(5, trees.get(i).sources().size());
                for (int j = i + 1; j < trees.size(); j++) {
                    assertNotEquals(trees.get(i).nextLinks(), trees.get(j).nextLinks());
                }
            }
        }
        assertTrue(walkAll(g, plan) > 0);
    }

    @Test
    public void ringSecondTreeTurnsTheOppositeSwitchAround() {
        // Toward switch 0 of a 4-ring, switches 1 and 3 are adjacent and always go straight; the
        // only freedom is switch 2, and the second tree must take the direction the first did not.
        FabricGraph g = Fabrics.ring(4);
        RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 2).plan(g);
        FabricHost d = g.host(Fabrics.mac(0)).get();
        List<ShadowTree> trees = plan.trees(d.mac());
        assertEquals(2, trees.size());
        FabricLink first = trees.get(0).nextLinks().get(Fabrics.sw(2));
        FabricLink second = trees.get(1).nextLinks().get(Fabrics.sw(2));
        assertNotEquals(first.dstDevice(), second.dstDevice());
        assertEquals(trees.get(0).nextLinks().get(Fabrics.sw(1)), trees.get(1).nextLinks().get(Fabrics.sw(1)));
        walkAll(g, plan);
    }

    @Test
    public void lineHasExactlyOneTree() {
        FabricGraph g = Fabrics.line(4);
        RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4).plan(g);
        for (FabricHost d : g.hosts()) {
            assertEquals(1, plan.trees(d.mac()).size());
        }
        assertEquals(2, walkAll(g, plan));
    }

    @Test
    public void parallelLinksGiveOneTreePerLink() {
        FabricGraph g = Fabrics.parallel(3);
        RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 8).plan(g);
        for (FabricHost d : g.hosts()) {
            List<ShadowTree> trees = plan.trees(d.mac());
            assertEquals("fewer disjoint paths than k: one tree per parallel link", 3, trees.size());
            Set<FabricLink> used = new HashSet<>();
            for (ShadowTree t : trees) {
                assertEquals(1, t.nextLinks().size());
                assertTrue(used.addAll(t.nextLinks().values()));
            }
            assertEquals(List.of(0, 1, 2), List.of(trees.get(0).index(), trees.get(1).index(), trees.get(2).index()));
        }
        // 4 hosts, each sees 2 remote hosts, 3 trees each.
        assertEquals(4 * 2 * 3, walkAll(g, plan));
    }

    @Test
    public void irregularGraphDeliversOnEveryTree() {
        FabricGraph g = Fabrics.irregular();
        RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 3).plan(g);
        for (FabricHost d : g.hosts()) {
            List<ShadowTree> trees = plan.trees(d.mac());
            assertTrue(trees.size() >= 2);
            for (ShadowTree t : trees) {
                // Every tree is a tree: the root has no next link and each member one.
                assertTrue(!t.nextLinks().containsKey(t.root()));
            }
        }
        // Host 2 hangs off switch 5 behind the bridge 4-5: every tree toward it uses the bridge.
        FabricLink bridge = Fabrics.link(4, 6, 5, 2);
        for (ShadowTree t : plan.trees(Fabrics.mac(2))) {
            assertTrue(t.uses(bridge));
        }
        assertTrue(walkAll(g, plan) > 0);
    }

    @Test
    public void disconnectedHostsGetNoTreesButDeliverLocally() {
        FabricGraph g = FabricGraph.builder().addSwitch(Fabrics.sw(0)).addSwitch(Fabrics.sw(1))
                .addHost(Fabrics.host(0, 0, 1)).addHost(Fabrics.host(1, 0, 2)).addHost(Fabrics.host(2, 1, 1))
                .build();
        RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 2).plan(g);
        assertEquals(0, plan.trees().size());
        assertTrue(plan.defaultPathIndex(Fabrics.mac(0), Fabrics.mac(2)).isEmpty());
        // Only same-edge delivery rules.
        assertEquals(3, plan.ruleCount());
        RuleWalk.Result r = new RuleWalk(g, plan.rulesByDevice())
                .send(g.host(Fabrics.mac(0)).get(), Fabrics.mac(1), null);
        assertEquals(Fabrics.mac(1), r.deliveredTo.mac());
    }

    @Test
    public void randomGraphsDeliverOnEveryTreeAndSurviveLinkFailures() {
        java.util.Random r = new java.util.Random(2024);
        for (int g = 0; g < 30; g++) {
            int n = 4 + r.nextInt(9);
            FabricGraph.Builder b = FabricGraph.builder();
            int[] nextPort = new int[n];
            java.util.Arrays.fill(nextPort, 10);
            for (int i = 0; i < n; i++) {
                b.addSwitch(Fabrics.sw(i));
            }
            // A random spanning tree keeps the graph connected; extra links add diversity.
            Set<String> cables = new HashSet<>();
            for (int i = 1; i < n; i++) {
                int j = r.nextInt(i);
                cables.add(j + "-" + i);
                b.addBidirectionalLink(Fabrics.link(j, nextPort[j]++, i, nextPort[i]++));
            }
            for (int extra = r.nextInt(2 * n); extra > 0; extra--) {
                int i = r.nextInt(n);
                int j = r.nextInt(n);
                if (i != j && cables.add(Math.min(i, j) + "-" + Math.max(i, j))) {
                    b.addBidirectionalLink(Fabrics.link(i, nextPort[i]++, j, nextPort[j]++));
                }
            }
            int hosts = 0;
            for (int i = 0; i < n; i++) {
                if (r.nextInt(3) > 0 || i == 0) {
                    b.addHost(Fabrics.host(hosts++, i, 1));
                }
            }
            FabricGraph graph = b.build();
            ShadowRoutePlanner planner = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 1 + r.nextInt(4));
            RoutingPlan plan = planner.plan(graph);
            for (ShadowTree t : plan.trees()) {
                for (FabricHost s : graph.hosts()) {
                    if (!s.edge().equals(t.root())) {
                        assertTrue("tree " + t + " misses source " + s.edge(), t.sources().contains(s.edge()));
                    }
                }
            }
            walkAll(graph, plan);
            // Fail a random link: everything still connected keeps being delivered.
            FabricLink dead = graph.links().get(r.nextInt(graph.links().size()));
            FabricGraph cut = graph.toBuilder().removeBidirectionalLink(dead).build();
            RoutingPlan after = planner.replan(plan, cut).plan();
            for (ShadowTree t : after.trees()) {
                assertTrue(!t.uses(dead) && !t.uses(dead.reversed()));
            }
            RuleWalk walk = new RuleWalk(cut, after.rulesByDevice());
            for (FabricHost d : cut.hosts()) {
                for (FabricHost s : cut.hosts()) {
                    if (s.equals(d) || !reachable(cut, s.edge()).contains(d.edge())) {
                        continue;
                    }
                    assertTrue(s.edge().equals(d.edge()) || after.defaultPathIndex(s.mac(), d.mac()).isPresent());
                    assertEquals(d, walk.send(s, d.mac(), null).deliveredTo);
                }
            }
        }
    }

    private static Set<org.onosproject.net.DeviceId> reachable(FabricGraph g, org.onosproject.net.DeviceId from) {
        Set<org.onosproject.net.DeviceId> seen = new HashSet<>(List.of(from));
        java.util.ArrayDeque<org.onosproject.net.DeviceId> queue = new java.util.ArrayDeque<>(seen);
        while (!queue.isEmpty()) {
            for (FabricLink l : g.egressLinks(queue.poll())) {
                if (seen.add(l.dstDevice())) {
                    queue.add(l.dstDevice());
                }
            }
        }
        return seen;
    }
}
