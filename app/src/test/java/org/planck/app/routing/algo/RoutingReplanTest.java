package org.planck.app.routing.algo;

import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.PortNumber;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.RoutingUpdate;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowPathId;
import org.planck.api.fabric.ShadowTree;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

/**
 * Re-planning after link, switch and host changes.
 */
public class RoutingReplanTest {
    private final FatTreeFabric fabric = FatTreeFabric.of(4);
    private final InMemoryShadowMacAllocator allocator = new InMemoryShadowMacAllocator();
    private final ShadowRoutePlanner planner = new ShadowRoutePlanner(allocator, 4);

    /** Applies an update's rule changes to the previous plan's rules: must give the new plan's rules. */
    private static void assertDiffTransforms(RoutingUpdate u) {
        Map<List<Object>, PlannedRule> state = new HashMap<>();
        for (PlannedRule r : u.previous().rules()) {
            state.put(r.matchKey(), r);
        }
        for (PlannedRule r : u.rulesToAdd()) {
            state.put(r.matchKey(), r);
        }
        for (PlannedRule r : u.rulesToRemove()) {
            assertEquals("removed rule still current", r, state.remove(r.matchKey()));
        }
        assertEquals(new HashSet<>(u.plan().rules()), new HashSet<>(state.values()));
    }

    private static boolean usesEither(ShadowTree t, FabricLink l) {
        return t.uses(l) || t.uses(l.reversed());
    }

    private static Map<FlowKey, FlowPlacement> everyFlow(RoutingPlan plan) {
        Map<FlowKey, FlowPlacement> flows = new HashMap<>();
        int sport = 1;
        for (FabricHost d : plan.graph().hosts()) {
            for (FabricHost s : plan.graph().hosts()) {
                if (s.edge().equals(d.edge())) {
                    continue;
                }
                for (ShadowTree t : plan.usableTrees(s.edge(), d.mac())) {
                    IpAddress si = s.ips().iterator().next();
                    IpAddress di = d.ips().iterator().next();
                    flows.put(FlowKey.of(si, di, 6, sport++, 80), FlowPlacement.of(s.mac(), d.mac(), t.index(), 1e6));
                }
            }
        }
        return flows;
    }

    @Test
    public void linkFailureRebuildsExactlyTheTreesOnIt() {
        RoutingPlan before = planner.plan(fabric.graph());
        FabricLink dead = fabric.graph().egressLinks(FatTreeFabric.edgeId(0, 0)).stream()
                .filter(l -> l.dstDevice().equals(FatTreeFabric.aggregationId(0, 0))).findFirst().get();
        FabricGraph after = fabric.graph().toBuilder().removeBidirectionalLink(dead).build();
        RoutingUpdate u = planner.replan(before, after);

        Set<ShadowPathId> onDeadLink = new HashSet<>();
        for (ShadowTree t : before.trees()) {
            if (usesEither(t, dead)) {
                onDeadLink.add(t.id());
            }
        }
        assertFalse(onDeadLink.isEmpty());
        assertEquals(onDeadLink, u.changedPaths());
        assertTrue("every tree could be rebuilt", u.removedPaths().isEmpty());
        for (ShadowTree t : u.plan().trees()) {
            assertFalse(t + " still uses the dead link", usesEither(t, dead));
            if (!onDeadLink.contains(t.id())) {
                assertEquals(before.tree(t.id()).get(), t);
            } else {
                // Same index keeps its shadow MAC: only the tree's rules move.
                assertEquals(before.tree(t.id()).get().shadowMac(), t.shadowMac());
            }
        }
        assertTrue(GeneralTopologyRoutingTest.walkAll(after, u.plan()) > 0);
        assertDiffTransforms(u);
        assertFalse(u.rulesToAdd().isEmpty());

        // Per-flow rules: exactly the flows whose first hop or tree changed need a new rule, and every
        // flow that left edge (0,0) over the dead link is among them.
        Map<FlowKey, FlowPlacement> flows = everyFlow(before);
        Set<FlowKey> replace = u.flowsToReplace(flows);
        int overDeadLink = 0;
        for (Map.Entry<FlowKey, FlowPlacement> e : flows.entrySet()) {
            FlowPlacement p = e.getValue();
            PlannedRule old = before.flowRule(e.getKey(), p.src(), p.dst(), p.pathIndex());
            PlannedRule now = u.plan().flowRule(e.getKey(), p.src(), p.dst(), p.pathIndex());
            assertEquals("flow " + e.getKey(), !old.equals(now), replace.contains(e.getKey()));
            ShadowPath path = before.path(p.src(), p.dst(), p.pathIndex()).get();
            if (path.hops().get(0).equals(org.planck.api.fabric.PathHop.of(dead.srcDevice(), dead.srcPort()))) {
                assertTrue(replace.contains(e.getKey()));
                overDeadLink++;
            }
        }
        assertTrue(overDeadLink > 0);

        // Host pairs whose default path crossed the dead link from edge (0,0) are rerouted.
        for (FabricHost s : after.hostsAt(dead.srcDevice())) {
            for (FabricHost d : after.hosts()) {
                if (d.edge().equals(s.edge())) {
                    continue;
                }
                int def = before.defaultPathIndex(s.mac(), d.mac()).getAsInt();
                if (before.path(s.mac(), d.mac(), def).get().hops().get(0).outPort().equals(dead.srcPort())) {
                    assertTrue(u.reroutedHostPairs().contains(Map.entry(s.mac(), d.mac())));
                }
            }
        }
        for (Map.Entry<org.onlab.packet.MacAddress, org.onlab.packet.MacAddress> pair : u.reroutedHostPairs()) {
            assertTrue(u.affectedHosts().contains(pair.getValue()) || u.affectedHosts().contains(pair.getKey()));
        }
    }

    @Test
    public void restoringTheLinkOnlyAddsTrees() {
        RoutingPlan before = planner.plan(fabric.graph());
        FabricLink dead = fabric.graph().egressLinks(FatTreeFabric.aggregationId(1, 1)).get(3);
        RoutingUpdate down = planner.replan(before, fabric.graph().toBuilder().removeBidirectionalLink(dead).build());
        // Some host toward which the failure left fewer distinct trees regains them on link up.
        int missing = 0;
        for (FabricHost h : fabric.graph().hosts()) {
            missing += 4 - down.plan().trees(h.mac()).size();
        }
        assertTrue(missing > 0);
        RoutingUpdate up = planner.replan(down.plan(), fabric.graph());
        assertEquals(missing, up.changedPaths().size());
        for (ShadowPathId id : up.changedPaths()) {
            assertFalse("existing tree " + id + " changed on link up", down.plan().tree(id).isPresent());
        }
        assertTrue(up.removedPaths().isEmpty());
        assertTrue(up.rulesToRemove().isEmpty());
        for (FabricHost h : fabric.graph().hosts()) {
            assertEquals(4, up.plan().trees(h.mac()).size());
        }
        assertTrue(GeneralTopologyRoutingTest.walkAll(fabric.graph(), up.plan()) > 0);
        assertDiffTransforms(up);
        // A second replan over the same graph is a no-op.
        assertTrue(planner.replan(up.plan(), fabric.graph()).isEmpty());
    }

    @Test
    public void coreFailureMovesTreesToOtherCores() {
        RoutingPlan before = planner.plan(fabric.graph());
        FabricGraph after = fabric.graph().toBuilder().removeSwitch(FatTreeFabric.coreId(0)).build();
        RoutingUpdate u = planner.replan(before, after);
        assertFalse(u.changedPaths().isEmpty());
        for (ShadowTree t : u.plan().trees()) {
            assertFalse(t.nextLinks().containsKey(FatTreeFabric.coreId(0)));
        }
        // Three cores left: at most three distinct trees per host.
        for (FabricHost h : after.hosts()) {
            int n = u.plan().trees(h.mac()).size();
            assertTrue(n >= 3 && n <= 4);
        }
        GeneralTopologyRoutingTest.walkAll(after, u.plan());
        assertDiffTransforms(u);
    }

    @Test
    public void hostMoveAndRemoval() {
        RoutingPlan before = planner.plan(fabric.graph());
        FabricHost gone = before.graph().host(FatTreeFabric.hostMac(3, 1, 0)).get();
        FabricHost mover = before.graph().host(FatTreeFabric.hostMac(0, 0, 1)).get();
        FabricHost moved = FabricHost.of(mover.mac(), mover.ips(), gone.location(), mover.capacityBps());
        FabricGraph after = fabric.graph().toBuilder().removeHost(gone.mac()).addHost(moved).build();
        List<ShadowTree> goneTrees = before.trees(gone.mac());

        RoutingUpdate u = planner.replan(before, after);
        assertEquals(Set.of(gone.mac(), mover.mac()), u.affectedHosts());
        for (ShadowTree t : goneTrees) {
            assertTrue(u.removedPaths().contains(t.id()));
            assertEquals(Optional.empty(), allocator.owner(t.shadowMac()));
        }
        for (ShadowTree t : u.plan().trees(mover.mac())) {
            assertEquals(moved.edge(), t.root());
            assertTrue(u.changedPaths().contains(t.id()));
        }
        assertTrue(u.plan().trees(gone.mac()).isEmpty());
        // Nothing toward other hosts changed.
        for (ShadowPathId id : u.changedPaths()) {
            assertTrue(id.destination().equals(gone.mac()) || id.destination().equals(mover.mac()));
        }
        GeneralTopologyRoutingTest.walkAll(after, u.plan());
        assertDiffTransforms(u);
        // The mover's ingress rules left its old edge.
        for (PlannedRule r : u.plan().rulesAt(mover.edge())) {
            assertNotEquals(Optional.of(mover.mac()), r.ethSrc());
        }
    }

    @Test
    public void partitionDropsTreesAndRestoresThem() {
        FabricGraph line = Fabrics.line(3);
        RoutingPlan before = planner.plan(line);
        FabricGraph cut = line.toBuilder().removeBidirectionalLink(Fabrics.link(1, 2, 2, 3)).build();
        RoutingUpdate u = planner.replan(before, cut);
        assertEquals(2, u.removedPaths().size());
        assertTrue(u.plan().trees().isEmpty());
        assertTrue(u.plan().defaultPathIndex(Fabrics.mac(0), Fabrics.mac(1)).isEmpty());
        assertDiffTransforms(u);
        RoutingUpdate healed = planner.replan(u.plan(), line);
        assertEquals(2, healed.plan().trees().size());
        assertEquals(2, GeneralTopologyRoutingTest.walkAll(line, healed.plan()));
        assertDiffTransforms(healed);
    }

    @Test
    public void newEdgeSwitchWithHostsJoinsExistingDestinations() {
        FabricGraph g = Fabrics.ring(4);
        RoutingPlan before = planner.plan(g);
        FabricGraph grown = g.toBuilder().addSwitch(Fabrics.sw(9))
                .addBidirectionalLink(Fabrics.link(9, 2, 0, 9))
                .addHost(FabricHost.of(Fabrics.mac(9), List.of(IpAddress.valueOf("11.0.0.9")), new ConnectPoint(Fabrics.sw(9),
                                                                                  PortNumber.portNumber(1)),
                                       Fabrics.GBPS))
                .build();
        RoutingUpdate u = planner.replan(before, grown);
        for (FabricHost h : grown.hosts()) {
            for (ShadowTree t : u.plan().trees(h.mac())) {
                if (!h.edge().equals(Fabrics.sw(9))) {
                    assertTrue(t.sources().contains(Fabrics.sw(9)));
                    // Grafted, not rebuilt: every existing hop stays, the new switch is added.
                    ShadowTree old = before.tree(t.id()).get();
                    for (Map.Entry<org.onosproject.net.DeviceId, FabricLink> e : old.nextLinks().entrySet()) {
                        assertEquals(e.getValue(), t.nextLinks().get(e.getKey()));
                    }
                    assertEquals(old.nextLinks().size() + 1, t.nextLinks().size());
                }
            }
        }
        assertTrue("grafting only adds rules", u.rulesToRemove().isEmpty());
        GeneralTopologyRoutingTest.walkAll(grown, u.plan());
        assertDiffTransforms(u);
    }

    @Test
    public void changingPathsPerDestinationAddsOrDropsHighIndices() {
        RoutingPlan four = planner.plan(fabric.graph());
        RoutingUpdate two = new ShadowRoutePlanner(allocator, 2).replan(four, fabric.graph());
        for (FabricHost h : fabric.graph().hosts()) {
            List<ShadowTree> trees = two.plan().trees(h.mac());
            assertEquals(2, trees.size());
            assertEquals(four.trees(h.mac()).subList(0, 2), trees);
        }
        assertEquals(16 * 2, two.removedPaths().size());
        GeneralTopologyRoutingTest.walkAll(fabric.graph(), two.plan());
        assertDiffTransforms(two);
        RoutingUpdate back = planner.replan(two.plan(), fabric.graph());
        for (FabricHost h : fabric.graph().hosts()) {
            assertEquals(4, back.plan().trees(h.mac()).size());
            // Indices 2 and 3 get their old MACs back.
            for (ShadowTree t : back.plan().trees(h.mac())) {
                assertEquals(four.tree(t.id()).get().shadowMac(), t.shadowMac());
            }
        }
        assertDiffTransforms(back);
    }
}
