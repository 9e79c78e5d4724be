package org.planck.app.routing;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Test;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.IPCriterion;
import org.onosproject.net.flow.criteria.TcpPortCriterion;
import org.onosproject.net.flow.instructions.L2ModificationInstruction;
import org.onlab.packet.IpPrefix;
import org.planck.api.FlowKey;
import org.planck.api.ShadowRouteEvent;
import org.planck.api.config.InvalidConfigException;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.RuleKind;
import org.planck.api.fabric.ShadowMacSpace;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowTree;
import org.planck.app.FabricTestBed;
import org.planck.app.PlanckTestBed;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.planck.app.TestConfigs.config;

public class ShadowRouteManagerTest {
    private static final int PATHS = 4;
    private FabricTestBed bed;

    @After
    public void tearDown() {
        if (bed != null) {
            bed.stop();
        }
    }

    private FabricTestBed start(int k, ObjectNode cfg) {
        bed = new FabricTestBed(k).start();
        bed.configure(cfg);
        return bed;
    }

    private ObjectNode plain() {
        return config().k(PATHS).json();
    }

    private List<FabricHost> hosts() {
        return new ArrayList<>(bed.fabric.graph().hosts());
    }

    /**
     * For every ordered host pair: the default (host-pair) route and every shadow path,
     * injected as the ingress rewrite would, arrive at the destination with its real MAC.
     */
    private void walkEverything() {
        FlowRuleWalk walk = new FlowRuleWalk(bed.flowRules, bed.links, bed.hosts);
        List<FabricHost> hosts = new ArrayList<>();
        bed.hosts.getHosts().forEach(h -> hosts.add(bed.routes.host(h.mac()).orElseThrow()));
        int walks = 0;
        for (FabricHost src : hosts) {
            for (FabricHost dst : hosts) {
                if (src.equals(dst)) {
                    continue;
                }
                FlowRuleWalk.Delivery d = walk.send(src.location(), src.mac(), dst.mac());
                assertEquals(src.mac() + "->" + dst.mac(), dst.mac(), d.host.mac());
                assertEquals("real MAC restored", dst.mac(), d.ethDst);
                walks++;
                if (src.edge().equals(dst.edge())) {
                    assertEquals(List.of(src.edge()), d.switches);
                    assertTrue(bed.routes.paths(src.mac(), dst.mac()).isEmpty());
                    continue;
                }
                ShadowPath chosen = bed.routes.chosenPath(src.mac(), dst.mac()).orElseThrow();
                assertEquals(devices(chosen), d.switches);
                List<ShadowPath> paths = bed.routes.paths(src.mac(), dst.mac());
                assertFalse(paths.isEmpty());
                Set<List<DeviceId>> distinct = new HashSet<>();
                for (ShadowPath p : paths) {
                    FlowRuleWalk.Delivery viaShadow = walk.send(src.location(), src.mac(), p.shadowMac());
                    assertEquals(dst.mac(), viaShadow.host.mac());
                    assertEquals("real MAC restored on " + p, dst.mac(), viaShadow.ethDst);
                    assertEquals(devices(p), viaShadow.switches);
                    distinct.add(viaShadow.switches);
                    walks++;
                }
                // Cross-pod paths differ in their core; inside a pod only the k/2 aggregations differ.
                boolean samePod = bed.fabric.pod(src.edge()).equals(bed.fabric.pod(dst.edge()));
                int expected = samePod ? Math.min(paths.size(), bed.fabric.k() / 2) : paths.size();
                assertEquals("distinct paths " + src.mac() + "->" + dst.mac(), expected, distinct.size());
            }
        }
        assertTrue(walks > hosts.size() * (hosts.size() - 1));
    }

    private static List<DeviceId> devices(ShadowPath p) {
        return p.hops().stream().map(PathHop::device).collect(Collectors.toList());
    }

    private void assertPathsDiverseAndMacsUnique() {
        int k = bed.fabric.k();
        int wanted = Math.min(PATHS, (k / 2) * (k / 2));
        Set<MacAddress> macs = new HashSet<>();
        for (FabricHost h : bed.fabric.graph().hosts()) {
            List<ShadowTree> trees = bed.routes.trees(h.mac());
            assertEquals(wanted, trees.size());
            for (ShadowTree t : trees) {
                assertTrue(ShadowMacSpace.isShadow(t.shadowMac()));
                assertTrue("shadow MACs unique", macs.add(t.shadowMac()));
            }
        }
        // A cross-pod pair's paths go through distinct cores.
        FabricHost a = hosts().stream().filter(h -> bed.fabric.pod(h.edge()).get() == 0).findFirst().get();
        FabricHost b = hosts().stream().filter(h -> bed.fabric.pod(h.edge()).get() == 1).findFirst().get();
        Set<DeviceId> cores = new HashSet<>();
        for (ShadowPath p : bed.routes.paths(a.mac(), b.mac())) {
            List<DeviceId> viaCore = devices(p).stream().filter(bed.fabric::isCore).collect(Collectors.toList());
            assertEquals(1, viaCore.size());
            assertTrue("distinct core per path", cores.add(viaCore.get(0)));
        }
        assertEquals(wanted, cores.size());
    }

    private void assertRulesAreTaggedPlanRules() {
        int n = 0;
        for (List<FlowRule> rules : bed.flowRules.snapshot().values()) {
            for (FlowRule r : rules) {
                assertEquals(PlanckTestBed.APP_ID.id(), r.appId());
                assertTrue(r.isPermanent());
                assertTrue(r.priority() == RuleKind.SHADOW_TRANSIT.priority()
                        || r.priority() == RuleKind.INGRESS_HOST_PAIR.priority());
                n++;
            }
        }
        assertEquals(bed.routes.plan().get().ruleCount(), n);
        assertEquals(n, bed.routes.plannedRules().size());
    }

    @Test
    public void ruleWalkOnK4FatTree() {
        start(4, plain());
        assertRulesAreTaggedPlanRules();
        assertPathsDiverseAndMacsUnique();
        walkEverything();
    }

    @Test
    public void ruleWalkOnK8FatTree() {
        start(8, plain());
        assertRulesAreTaggedPlanRules();
        assertPathsDiverseAndMacsUnique();
        walkEverything();
    }

    @Test
    public void linkDownMovesTrafficOffTheDeadLinkAndTouchesOnlyAffectedSwitches() {
        start(4, plain());
        DeviceId agg = bed.fabric.aggregations().get(0);
        ConnectPoint aggSide = new ConnectPoint(agg, PortNumber.portNumber(4));
        ConnectPoint coreSide = bed.links.link(aggSide).dst();
        assertTrue(bed.fabric.isCore(coreSide.deviceId()));
        Map<DeviceId, Integer> before = new HashMap<>(bed.flowRules.operationsPerDevice);
        List<ShadowRouteEvent> events = new ArrayList<>();
        bed.routes.addListener(events::add);

        bed.links.cut(aggSide, coreSide);

        FlowRuleWalk walk = new FlowRuleWalk(bed.flowRules, bed.links, bed.hosts);
        for (FabricHost src : hosts()) {
            for (FabricHost dst : hosts()) {
                if (src.equals(dst)) {
                    continue;
                }
                FlowRuleWalk.Delivery d = walk.send(src.location(), src.mac(), dst.mac());
                assertEquals(dst.mac(), d.host.mac());
                assertFalse("uses the dead link", d.egress.contains(aggSide) || d.egress.contains(coreSide));
                for (ShadowPath p : bed.routes.paths(src.mac(), dst.mac())) {
                    FlowRuleWalk.Delivery s = walk.send(src.location(), src.mac(), p.shadowMac());
                    assertEquals(dst.mac(), s.ethDst);
                    assertFalse(s.egress.contains(aggSide) || s.egress.contains(coreSide));
                }
            }
        }
        Set<DeviceId> touched = new HashSet<>();
        bed.flowRules.operationsPerDevice.forEach((d, n) -> {
            if (!n.equals(before.get(d))) {
                touched.add(d);
            }
        });
        assertFalse(touched.isEmpty());
        assertTrue("only affected switches reprogrammed: " + touched.size(),
                touched.size() < bed.fabric.graph().switches().size());
        assertFalse(events.isEmpty());
        assertEquals(ShadowRouteEvent.Type.ROUTES_UPDATED, events.get(events.size() - 1).type());
    }

    @Test
    public void movedHostIsReachedAtItsNewPort() {
        start(4, plain());
        FabricHost moving = hosts().get(0);
        DeviceId newEdge = bed.fabric.edges().get(bed.fabric.edges().size() - 1);
        bed.devices.addPort(newEdge, 7, 10_000);
        ConnectPoint newPlace = new ConnectPoint(newEdge, PortNumber.portNumber(7));
        bed.hosts.moveHost(moving.mac(), newPlace);
        assertEquals(newPlace, bed.routes.host(moving.mac()).get().location());
        FlowRuleWalk walk = new FlowRuleWalk(bed.flowRules, bed.links, bed.hosts);
        for (FabricHost src : hosts()) {
            if (src.mac().equals(moving.mac())) {
                continue;
            }
            FlowRuleWalk.Delivery d = walk.send(src.location(), src.mac(), moving.mac());
            assertEquals(moving.mac(), d.host.mac());
            assertEquals(newPlace, d.egress.get(d.egress.size() - 1));
        }
    }

    @Test
    public void onlyMastersProgramTheirSwitches() {
        bed = new FabricTestBed(4);
        DeviceId core = bed.fabric.cores().get(0);
        bed.mastership.masteredElsewhere(core);
        bed.start();
        bed.configure(plain());
        assertTrue(bed.flowRules.rules(core).isEmpty());
        assertTrue(bed.routes.plannedRules().stream().anyMatch(r -> r.deviceId().equals(core)));
        assertFalse(bed.flowRules.rules(bed.fabric.cores().get(1)).isEmpty());
    }

    @Test
    public void removingTheConfigLeavesNoRuleBehind() {
        start(4, plain());
        assertTrue(bed.flowRules.getFlowRuleCount() > 0);
        MacAddress someone = hosts().get(0).mac();
        assertFalse(bed.routes.trees(someone).isEmpty());
        bed.config.remove();
        assertEquals(0, bed.flowRules.getFlowRuleCount());
        assertTrue(bed.routes.trees(someone).isEmpty());
        assertFalse(bed.routes.plan().isPresent());
    }

    @Test
    public void deactivationLeavesNoRuleBehind() {
        start(4, plain());
        assertTrue(bed.flowRules.getFlowRuleCount() > 0);
        bed.stop();
        assertEquals(0, bed.flowRules.getFlowRuleCount());
        bed = null;
    }

    @Test
    public void invalidConfigKeepsTheRoutesInForce() {
        start(4, plain());
        Map<DeviceId, List<FlowRule>> before = bed.flowRules.snapshot();
        ObjectNode bad = plain();
        bad.put("shadowPathsPerDestination", 1000);
        try {
            bed.configure(bad);
            fail("accepted k=1000");
        } catch (InvalidConfigException e) {
            assertTrue(e.getMessage().contains("shadowPathsPerDestination"));
        }
        assertEquals(before, bed.flowRules.snapshot());
        assertEquals(PATHS, bed.routes.trees(hosts().get(0).mac()).size());
    }

    @Test
    public void changingKReplansEverything() {
        start(4, plain());
        bed.configure(config().k(2).json());
        for (FabricHost h : hosts()) {
            assertEquals(2, bed.routes.trees(h.mac()).size());
        }
        walkEverything();
    }

    @Test
    public void openFlowOnlySwitchCopiesPlanckTrafficToItsMirrorPort() {
        bed = new FabricTestBed(4).start();
        DeviceId mirrored = bed.fabric.edges().get(0);
        PortNumber mirrorPort = PortNumber.portNumber(5);
        bed.configure(config().k(PATHS).collector("c1", "127.0.0.1", 9100)
                .serve(mirrored.toString(), 5, 10).json());
        FlowRuleWalk walk = new FlowRuleWalk(bed.flowRules, bed.links, bed.hosts);
        FabricHost local = bed.fabric.graph().hostsAt(mirrored).get(0);
        FabricHost remote = hosts().stream().filter(h -> !h.edge().equals(mirrored)).findFirst().get();

        FlowRuleWalk.Delivery out = walk.send(local.location(), local.mac(), remote.mac());
        assertEquals(remote.mac(), out.host.mac());
        assertEquals(1, out.copies.size());
        FlowRuleWalk.MirrorCopy c = out.copies.get(0);
        assertEquals(mirrored, c.device);
        assertEquals(mirrorPort, c.port);
        assertEquals(VlanId.vlanId((short) 10), c.vlan);
        assertTrue("the copy shows the frame as it left: shadow MAC", ShadowMacSpace.isShadow(c.ethDst));

        FlowRuleWalk.Delivery in = walk.send(remote.location(), remote.mac(), local.mac());
        assertEquals(local.mac(), in.host.mac());
        assertEquals(1, in.copies.size());
        assertEquals(local.mac(), in.copies.get(0).ethDst);

        // Unmirrored switches emit no copies; removing the collector removes the copies.
        bed.configure(config().k(PATHS).json());
        FlowRuleWalk after = new FlowRuleWalk(bed.flowRules, bed.links, bed.hosts);
        assertTrue(after.send(local.location(), local.mac(), remote.mac()).copies.isEmpty());
        assertNotEquals(0, bed.flowRules.getFlowRuleCount());
    }

    private List<FlowRule> perFlowRules(DeviceId d) {
        return bed.flowRules.rules(d).stream().filter(r -> r.priority() == RuleKind.INGRESS_FLOW.priority())
                .collect(Collectors.toList());
    }

    private static MacAddress setsEthDst(FlowRule r) {
        return r.treatment().allInstructions().stream()
                .filter(i -> i instanceof L2ModificationInstruction.ModEtherInstruction)
                .map(i -> ((L2ModificationInstruction.ModEtherInstruction) i).mac()).findFirst().orElseThrow();
    }

    @Test
    public void placedFlowGetsAPerFlowRuleAndMovesOffADeadPath() {
        start(4, plain());
        FabricHost src = bed.fabric.graph().hostsAt(bed.fabric.edges().get(0)).get(0);
        FabricHost dst = bed.fabric.graph().hostsAt(bed.fabric.edges().get(2)).get(0);
        int def = bed.routes.chosenPath(src.mac(), dst.mac()).get().index();
        ShadowPath other = bed.routes.paths(src.mac(), dst.mac()).stream().filter(p -> p.index() != def)
                .findFirst().get();
        FlowKey flow = FlowKey.of(src.ips().iterator().next(), dst.ips().iterator().next(), 6, 40000, 80);

        bed.routes.placeFlow(flow, src.mac(), dst.mac(), other.index());
        List<FlowRule> rules = perFlowRules(src.edge());
        assertEquals(1, rules.size());
        FlowRule r = rules.get(0);
        assertEquals(PlanckTestBed.APP_ID.id(), r.appId());
        assertEquals(other.shadowMac(), setsEthDst(r));
        assertEquals(80, ((TcpPortCriterion) r.selector().getCriterion(Criterion.Type.TCP_DST)).tcpPort().toInt());
        assertEquals(IpPrefix.valueOf(dst.ips().iterator().next(), 32),
                ((IPCriterion) r.selector().getCriterion(Criterion.Type.IPV4_DST)).ip());
        assertTrue(bed.routes.plannedRules().contains(r));

        // Kill the placed path's aggregation-to-core link.
        ConnectPoint dead = new ConnectPoint(other.hops().get(1).device(), other.hops().get(1).outPort());
        bed.links.cut(dead, bed.links.link(dead).dst());
        FlowPlacement now = bed.routes.placements().get(flow);
        ShadowPath path = bed.routes.plan().get().path(src.mac(), dst.mac(), now.pathIndex()).get();
        assertFalse("moved off the dead link", path.egressPorts().contains(dead));
        List<FlowRule> after = perFlowRules(src.edge());
        assertEquals(1, after.size());
        assertEquals(path.shadowMac(), setsEthDst(after.get(0)));

        assertTrue(bed.routes.removeFlow(flow));
        assertTrue(perFlowRules(src.edge()).isEmpty());
        assertFalse(bed.routes.removeFlow(flow));
    }

    @Test
    public void placementsAreValidatedAndClearedWithTheConfig() {
        start(4, plain());
        FabricHost a = hosts().get(0);
        FabricHost sameEdge = bed.fabric.graph().hostsAt(a.edge()).stream().filter(h -> !h.equals(a)).findFirst()
                .get();
        FabricHost far = bed.fabric.graph().hostsAt(bed.fabric.edges().get(3)).get(0);
        FlowKey flow = FlowKey.of(a.ips().iterator().next(), far.ips().iterator().next(), 17, 5000, 5001);
        for (Runnable bad : List.<Runnable>of(
                () -> bed.routes.placeFlow(flow, MacAddress.valueOf("00:00:00:00:99:99"), far.mac(), 0),
                () -> bed.routes.placeFlow(flow, a.mac(), sameEdge.mac(), 0),
                () -> bed.routes.placeFlow(flow, a.mac(), far.mac(), 99))) {
            try {
                bad.run();
                fail("invalid placement accepted");
            } catch (IllegalArgumentException e) {
                assertTrue(bed.routes.placements().isEmpty());
            }
        }
        bed.routes.placeFlow(flow, a.mac(), far.mac(), 1);
        assertEquals(1, perFlowRules(a.edge()).size());
        bed.config.remove();
        assertTrue(bed.routes.placements().isEmpty());
        assertEquals(0, bed.flowRules.getFlowRuleCount());
        try {
            bed.routes.placeFlow(flow, a.mac(), far.mac(), 1);
            fail("placement accepted without configuration");
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage().contains("not configured"));
        }
    }
}
