package org.planck.api.fabric;

import org.planck.api.Expect;
import com.google.common.collect.ImmutableMap;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * Validation and queries of the fabric model.
 */
public class FabricModelTest {
    private static final DeviceId A = DeviceId.deviceId("of:000000000000000a");
    private static final DeviceId B = DeviceId.deviceId("of:000000000000000b");
    private static final MacAddress H1 = MacAddress.valueOf("00:00:00:00:00:01");
    private static final MacAddress H2 = MacAddress.valueOf("00:00:00:00:00:02");

    private static PortNumber p(int n) {
        return PortNumber.portNumber(n);
    }

    private static FabricHost host(MacAddress mac, DeviceId sw, int port, String ip) {
        return FabricHost.of(mac, List.of(IpAddress.valueOf(ip)), new ConnectPoint(sw, p(port)), 1_000);
    }

    private static FabricGraph twoSwitches() {
        return FabricGraph.builder().addSwitch(B).addSwitch(A)
                .addBidirectionalLink(FabricLink.of(A, p(3), B, p(4), 10_000))
                .addHost(host(H1, A, 1, "10.0.0.1"))
                .addHost(host(H2, B, 1, "10.0.0.2"))
                .build();
    }

    @Test
    public void queries() {
        FabricGraph g = twoSwitches();
        assertEquals(List.of(A, B), g.switches());
        assertEquals(0, g.index(A));
        assertEquals(1, g.egressLinks(A).size());
        assertEquals(B, g.egressLinks(A).get(0).dstDevice());
        assertEquals(B, g.ingressLinks(A).get(0).srcDevice());
        assertEquals(2, g.links().size());
        assertEquals(H2, g.hostByIp(IpAddress.valueOf("10.0.0.2")).get().mac());
        assertEquals(List.of(g.host(H1).get()), g.hostsAt(A));
        assertEquals(Long.valueOf(10_000), g.portCapacityBps(new ConnectPoint(A, p(3))).get());
        assertEquals(Long.valueOf(1_000), g.portCapacityBps(new ConnectPoint(A, p(1))).get());
        assertFalse(g.portCapacityBps(new ConnectPoint(A, p(9))).isPresent());
        assertEquals(g, g.toBuilder().build());
        FabricGraph cut = g.toBuilder().removeBidirectionalLink(g.links().get(0)).build();
        assertTrue(cut.links().isEmpty());
        FabricGraph noB = g.toBuilder().removeSwitch(B).build();
        assertEquals(List.of(A), noB.switches());
        assertFalse(noB.host(H2).isPresent());
        assertTrue(noB.links().isEmpty());
    }

    @Test
    public void rejectsInconsistentGraphs() {
        Expect.thrown(IllegalArgumentException.class, () -> FabricGraph.builder().addSwitch(A)
                .addLink(FabricLink.of(A, p(1), B, p(1), 1)).build());
        Expect.thrown(IllegalArgumentException.class, () -> FabricGraph.builder().addSwitch(A).addSwitch(B)
                .addLink(FabricLink.of(A, p(1), B, p(1), 1)).addLink(FabricLink.of(A, p(1), B, p(2), 1)));
        Expect.thrown(IllegalArgumentException.class, () -> FabricGraph.builder().addSwitch(A).addSwitch(B)
                .addLink(FabricLink.of(A, p(1), B, p(1), 1)).addHost(host(H1, A, 1, "10.0.0.1")).build());
        Expect.thrown(IllegalArgumentException.class, () -> FabricGraph.builder().addSwitch(A)
                .addHost(host(H1, A, 1, "10.0.0.1")).addHost(host(H2, A, 1, "10.0.0.2")).build());
        Expect.thrown(IllegalArgumentException.class, () -> FabricGraph.builder().addSwitch(A)
                .addHost(host(H1, A, 1, "10.0.0.1")).addHost(host(H2, A, 2, "10.0.0.1")).build());
        Expect.thrown(IllegalArgumentException.class, () -> FabricGraph.builder()
                .addHost(host(H1, A, 1, "10.0.0.1")).build());
        Expect.thrown(IllegalArgumentException.class, () -> FabricLink.of(A, p(1), A, p(2), 1));
        Expect.thrown(IllegalArgumentException.class, () -> FabricLink.of(A, p(1), B, p(2), 0));
        Expect.thrown(IllegalArgumentException.class, () -> host(ShadowMacSpace.mac(5), A, 1, "10.0.0.1"));
        Expect.thrown(IllegalArgumentException.class, () -> host(MacAddress.BROADCAST, A, 1, "10.0.0.1"));
    }

    @Test
    public void shadowMacSpace() {
        assertEquals(MacAddress.valueOf("02:70:00:00:00:00"), ShadowMacSpace.mac(0));
        assertEquals(MacAddress.valueOf("02:70:ff:ff:ff:ff"), ShadowMacSpace.mac(ShadowMacSpace.SIZE - 1));
        assertEquals(0x12345678L, ShadowMacSpace.ordinal(ShadowMacSpace.mac(0x12345678L)));
        assertFalse(ShadowMacSpace.isShadow(MacAddress.valueOf("02:71:00:00:00:00")));
        assertFalse(ShadowMacSpace.isShadow(H1));
        Expect.thrown(IllegalArgumentException.class, () -> ShadowMacSpace.mac(ShadowMacSpace.SIZE));
        Expect.thrown(IllegalArgumentException.class, () -> ShadowMacSpace.mac(-1));
        Expect.thrown(IllegalArgumentException.class, () -> ShadowMacSpace.ordinal(H1));
    }

    @Test
    public void pathChoiceIsStableAndSpreads() {
        assertEquals(PathChoice.choose(H1, H2, 4), PathChoice.choose(H1, H2, 4));
        int[] counts = new int[4];
        for (int i = 0; i < 4000; i++) {
            counts[PathChoice.choose(MacAddress.valueOf(i), H2, 4)]++;
        }
        for (int c : counts) {
            assertTrue("uneven spread " + c, c > 850 && c < 1150);
        }
        Expect.thrown(IllegalArgumentException.class, () -> PathChoice.choose(H1, H2, 0));
    }

    @Test
    public void treePathsAndLoopGuard() {
        FabricGraph g = twoSwitches();
        FabricHost h2 = g.host(H2).get();
        FabricLink ab = g.egressLinks(A).get(0);
        ShadowTree t = ShadowTree.of(ShadowPathId.of(H2, 0), ShadowMacSpace.mac(1), h2, Map.of(A, ab), Set.of(A));
        ShadowPath path = t.path(A).get();
        assertEquals(List.of(PathHop.of(A, p(3)), PathHop.of(B, p(1))), path.hops());
        assertEquals(A, path.source());
        assertEquals(List.of(new ConnectPoint(A, p(3)), new ConnectPoint(B, p(1))), path.egressPorts());
        assertEquals(List.of(PathHop.of(B, p(1))), t.path(B).get().hops());
        assertTrue(t.uses(ab));
        assertFalse(t.uses(ab.reversed()));
        assertEquals(p(1), t.outPort(B).get());
        Expect.thrown(IllegalArgumentException.class, () -> ShadowTree.of(ShadowPathId.of(H1, 0),
                ShadowMacSpace.mac(1), h2, Map.of(A, ab), Set.of(A)));
        Expect.thrown(IllegalArgumentException.class, () -> ShadowTree.of(ShadowPathId.of(H2, 0),
                ShadowMacSpace.mac(1), h2, Map.of(B, ab), Set.of()));
        // A loop between two non-root switches is caught when walking.
        DeviceId c = DeviceId.deviceId("of:000000000000000c");
        FabricLink ac = FabricLink.of(A, p(7), c, p(7), 1);
        FabricLink ca = FabricLink.of(c, p(8), A, p(8), 1);
        ShadowTree loop = ShadowTree.of(ShadowPathId.of(H2, 1), ShadowMacSpace.mac(2), h2,
                                        ImmutableMap.of(A, ac, c, ca), Set.of(A));
        Expect.thrown(IllegalStateException.class, () -> loop.path(A));
    }

    @Test
    public void forwardingMapFromRules() {
        FabricGraph g = twoSwitches();
        FabricHost h2 = g.host(H2).get();
        ShadowPathId id = ShadowPathId.of(H2, 0);
        MacAddress s = ShadowMacSpace.mac(1);
        Map<DeviceId, List<PlannedRule>> rules = Map.of(
                A, List.of(PlannedRule.shadowTransit(A, id, s, p(3)),
                           PlannedRule.ingressHostPair(A, H1, H2, id, s, p(3))),
                B, List.of(PlannedRule.shadowDelivery(h2, id, s), PlannedRule.hostDelivery(h2)));
        ForwardingMap m = ForwardingMap.fromRules(rules);
        assertEquals(p(3), m.port(A, s).get());
        assertFalse("ingress rules are not in the map", m.port(A, H2).isPresent());
        assertEquals(p(1), m.port(B, s).get());
        assertEquals(p(1), m.port(B, H2).get());
        assertEquals(3, m.size());
        Map<DeviceId, List<PlannedRule>> conflicting = Map.of(
                A, List.of(PlannedRule.shadowTransit(A, id, s, p(3)), PlannedRule.shadowTransit(A, id, s, p(4))));
        Expect.thrown(IllegalArgumentException.class, () -> ForwardingMap.fromRules(conflicting));
    }

    @Test
    public void ruleMatchKeysAndPriorities() {
        ShadowPathId id = ShadowPathId.of(H2, 0);
        PlannedRule a = PlannedRule.ingressHostPair(A, H1, H2, id, ShadowMacSpace.mac(1), p(3));
        PlannedRule b = PlannedRule.ingressHostPair(A, H1, H2, ShadowPathId.of(H2, 1), ShadowMacSpace.mac(2), p(4));
        assertEquals(a.matchKey(), b.matchKey());
        assertFalse(a.equals(b));
        assertTrue(RuleKind.INGRESS_FLOW.priority() > RuleKind.INGRESS_HOST_PAIR.priority());
        assertTrue(RuleKind.INGRESS_HOST_PAIR.priority() > RuleKind.SHADOW_TRANSIT.priority());
        Expect.thrown(IllegalArgumentException.class,
                     () -> PlannedRule.ingressHostPair(A, H1, H1, id, ShadowMacSpace.mac(1), p(3)));
    }
}
