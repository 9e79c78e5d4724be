package org.planck.app.te;

import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.FlowMove;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.RoutingUpdate;
import org.planck.api.fabric.ShadowTree;
import org.planck.app.routing.FatTreeFabric;
import org.planck.app.routing.InMemoryShadowMacAllocator;
import org.planck.app.routing.ShadowRoutePlanner;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Random;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * Incremental port-load bookkeeping against a from-scratch recount, and TE invariants on a fat tree.
 */
public class FabricLoadTest {
    private final FatTreeFabric fabric = FatTreeFabric.of(4, 1_000_000_000L, 1_000_000_000L);
    private final ShadowRoutePlanner planner = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4);
    private final RoutingPlan plan = planner.plan(fabric.graph());
    private final List<FabricHost> hosts = new ArrayList<>(fabric.graph().hosts());

    private FlowPlacement randomPlacement(Random r) {
        FabricHost s = hosts.get(r.nextInt(hosts.size()));
        FabricHost d = hosts.get(r.nextInt(hosts.size()));
        while (d.equals(s)) {
            d = hosts.get(r.nextInt(hosts.size()));
        }
        int index = 0;
        if (!s.edge().equals(d.edge())) {
            List<ShadowTree> usable = plan.usableTrees(s.edge(), d.mac());
            index = usable.get(r.nextInt(usable.size())).index();
        }
        return FlowPlacement.of(s.mac(), d.mac(), index, r.nextInt(20_000_000));
    }

    private static FlowKey key(int i) {
        return FlowKey.of(IpAddress.valueOf(0x0a000000 + (i >>> 16)), IpAddress.valueOf("10.255.0.1"), 6,
                          i & 0xffff, 80);
    }

    /** Recomputes every port's load from the placements. */
    private Map<ConnectPoint, Double> recount(FabricLoad load) {
        Map<ConnectPoint, Double> m = new HashMap<>();
        for (Map.Entry<FlowKey, FlowPlacement> e : load.placements().entrySet()) {
            for (ConnectPoint p : load.pathOf(e.getKey())) {
                m.merge(p, e.getValue().rateBytesPerSec(), Double::sum);
            }
        }
        return m;
    }

    private void assertConsistent(FabricLoad load) {
        Map<ConnectPoint, Double> expected = recount(load);
        for (FabricLink l : fabric.graph().links()) {
            assertEquals(l.src().toString(), expected.getOrDefault(l.src(), 0.0), load.loadBytesPerSec(l.src()), 1e-3);
            int on = 0;
            for (FlowKey f : load.flowsOn(l.src())) {
                assertTrue(load.pathOf(f).contains(l.src()));
                on++;
            }
            assertEquals(expected.containsKey(l.src()) ? on : 0, on);
        }
        for (FabricHost h : hosts) {
            assertEquals(expected.getOrDefault(h.location(), 0.0), load.loadBytesPerSec(h.location()), 1e-3);
        }
    }

    @Test
    public void incrementalLoadsMatchARecount() {
        Random r = new Random(7);
        FabricLoad load = new FabricLoad(plan);
        for (int step = 0; step < 5000; step++) {
            int f = r.nextInt(300);
            switch (r.nextInt(4)) {
                case 0:
                case 1:
                    load.place(key(f), randomPlacement(r));
                    break;
                case 2:
                    load.updateRate(key(f), r.nextInt(20_000_000));
                    break;
                default:
                    load.remove(key(f));
                    break;
            }
            if (step % 500 == 0) {
                assertConsistent(load);
            }
        }
        assertConsistent(load);
        for (int f = 0; f < 300; f++) {
            load.remove(key(f));
        }
        assertEquals(0, load.flowCount());
        for (FabricLink l : fabric.graph().links()) {
            assertEquals(0.0, load.loadBytesPerSec(l.src()), 0.0);
            assertTrue(load.flowsOn(l.src()).isEmpty());
        }
    }

    @Test
    public void rejectsPlacementsWithoutAPathAndChangesNothing() {
        FabricLoad load = new FabricLoad(plan);
        FabricHost s = hosts.get(0);
        FabricHost d = hosts.get(hosts.size() - 1);
        load.place(key(1), FlowPlacement.of(s.mac(), d.mac(), 0, 1000));
        Expect.thrown(IllegalArgumentException.class,
                      () -> load.place(key(1), FlowPlacement.of(s.mac(), d.mac(), 9, 1000)));
        Expect.thrown(IllegalArgumentException.class, () -> load.place(key(2), FlowPlacement.of(
                s.mac(), org.onlab.packet.MacAddress.valueOf("00:00:00:00:00:99"), 0, 1000)));
        assertEquals(1, load.flowCount());
        assertEquals(0, load.placement(key(1)).get().pathIndex());
        assertConsistent(load);
        assertFalse(load.updateRate(key(3), 5));
        assertFalse(load.remove(key(3)));
    }

    @Test
    public void rebaseAfterLinkFailureDropsOnlyFlowsWithoutAPath() {
        Random r = new Random(11);
        FabricLoad load = new FabricLoad(plan);
        for (int f = 0; f < 400; f++) {
            load.place(key(f), randomPlacement(r));
        }
        FabricLink dead = fabric.graph().egressLinks(FatTreeFabric.coreId(0)).get(0);
        RoutingUpdate u = planner.replan(plan, fabric.graph().toBuilder().removeBidirectionalLink(dead).build());
        Map<FlowKey, FlowPlacement> dropped = load.rebase(u.plan());
        assertEquals(400, load.flowCount() + dropped.size());
        for (FlowKey f : load.placements().keySet()) {
            assertFalse(load.pathOf(f).contains(dead.src()));
            assertFalse(load.pathOf(f).contains(dead.dst()));
        }
        assertConsistent(load);
    }

    @Test
    public void relievingTheMostLoadedPortOnAFatTree() {
        Random r = new Random(3);
        FabricLoad load = new FabricLoad(plan);
        // Load the fabric until some switch-to-switch link is over the threshold.
        ConnectPoint worst = null;
        for (int f = 0; worst == null; f++) {
            load.place(key(f), randomPlacement(r));
            for (ConnectPoint p : load.portsAbove(0.8)) {
                if (fabric.graph().link(p).isPresent()) {
                    worst = p;
                }
            }
        }
        Set<FlowKey> onWorst = new HashSet<>(load.flowsOn(worst));
        Map<FlowKey, FlowPlacement> before = load.placements();
        double beforeUtil = load.utilisation(worst);
        CongestionRerouter te = new CongestionRerouter(load, 0.8, 0);
        List<FlowMove> moves = te.relieve(worst, OptionalDouble.empty(), 0);
        assertFalse(moves.isEmpty());
        double lastRate = Double.POSITIVE_INFINITY;
        for (FlowMove m : moves) {
            assertTrue("moved a flow not on the port", onWorst.contains(m.flow()));
            assertTrue("largest first", m.from().rateBytesPerSec() <= lastRate);
            lastRate = m.from().rateBytesPerSec();
            assertFalse(load.pathOf(m.flow()).contains(worst));
            assertTrue(m.maxUtilisationAfter() <= 0.8 + 1e-9 || m.maxUtilisationAfter() <= beforeUtil);
        }
        assertTrue(load.utilisation(worst) < beforeUtil);
        int moved = 0;
        for (Map.Entry<FlowKey, FlowPlacement> e : load.placements().entrySet()) {
            if (!e.getValue().equals(before.get(e.getKey()))) {
                moved++;
            }
        }
        assertEquals(moves.size(), moved);
        assertConsistent(load);
    }

    @Test
    public void congestionMarksAndMeasuredLoadsSurviveRebase() {
        FabricLoad load = new FabricLoad(plan);
        ConnectPoint hot = fabric.graph().egressLinks(FatTreeFabric.coreId(1)).get(0).src();
        ConnectPoint busy = fabric.graph().egressLinks(FatTreeFabric.coreId(2)).get(0).src();
        assertTrue(load.markCongested(hot));
        assertTrue(load.reportPortLoad(busy, 100e6));
        FabricLink dead = fabric.graph().egressLinks(FatTreeFabric.coreId(0)).get(0);
        RoutingUpdate u = planner.replan(plan, fabric.graph().toBuilder().removeBidirectionalLink(dead).build());
        load.rebase(u.plan());
        assertTrue(load.isCongested(hot));
        assertEquals(100e6, load.effectiveLoadBytesPerSec(busy), 0.0);
        assertFalse(load.isCongested(busy));
        // Ports of the dead link are gone.
        assertFalse(load.markCongested(dead.src()));
        load.clearCongested(hot);
        assertFalse(load.isCongested(hot));
    }
}
