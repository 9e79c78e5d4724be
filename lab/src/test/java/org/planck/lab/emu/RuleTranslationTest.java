package org.planck.lab.emu;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.RuleKind;
import org.planck.app.routing.algo.FatTreeFabric;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/**
 * Plan -> emulator rule operations: every planned rule becomes exactly one op with its match,
 * rewrite, output and priority, in the contract's JSON shape.
 */
public class RuleTranslationTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private final RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4)
            .plan(FatTreeFabric.of(4).graph());

    /** The contract's MAC rendering is ONOS's, in lower case, for every byte value. */
    @Test
    public void macRenderingMatchesOnosInLowerCase() {
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < 2000; i++) {
            byte[] b = new byte[6];
            random.nextBytes(b);
            org.onlab.packet.MacAddress mac = org.onlab.packet.MacAddress.valueOf(b);
            assertEquals(mac.toString().toLowerCase(), RuleTranslation.mac(mac));
        }
        assertEquals("ff:ff:ff:ff:ff:ff", RuleTranslation.mac(org.onlab.packet.MacAddress.BROADCAST));
        assertEquals("00:00:00:00:00:00", RuleTranslation.mac(org.onlab.packet.MacAddress.ZERO));
    }

    @Test
    public void everyPlannedRuleIsOneOpWithItsKindsPriority() {
        List<RuleOp> ops = RuleTranslation.addAll(plan.rules());
        assertEquals(plan.ruleCount(), ops.size());
        Set<RuleKind> kinds = EnumSet.noneOf(RuleKind.class);
        Set<String> keys = new HashSet<>();
        List<PlannedRule> rules = plan.rules();
        for (int i = 0; i < ops.size(); i++) {
            PlannedRule r = rules.get(i);
            RuleOp op = ops.get(i);
            kinds.add(r.kind());
            assertEquals(RuleOp.Kind.ADD, op.kind());
            assertEquals(r.device(), op.device());
            assertEquals(r.kind().priority(), op.priority());
            assertEquals(r.outPort().toLong(), op.output().getAsLong());
            assertEquals(r.ethDst().toString().toLowerCase(), op.match().get("ethDst"));
            assertTrue("one op per rule identity: " + op, keys.add(op.ruleKey()));
        }
        assertEquals(EnumSet.of(RuleKind.SHADOW_TRANSIT, RuleKind.SHADOW_DELIVERY, RuleKind.HOST_DELIVERY,
                                RuleKind.INGRESS_HOST_PAIR), kinds);
    }

    @Test
    public void transitMatchesShadowMacOnlyAndDoesNotRewrite() {
        PlannedRule transit = first(RuleKind.SHADOW_TRANSIT);
        RuleOp op = RuleTranslation.add(transit);
        assertEquals(Set.of("ethDst"), op.match().keySet());
        assertNull(op.setEthDst());
        assertTrue(op.match().get("ethDst").toString().startsWith("02:70:"));
    }

    @Test
    public void deliveryRestoresTheHostMac() {
        PlannedRule delivery = first(RuleKind.SHADOW_DELIVERY);
        RuleOp op = RuleTranslation.add(delivery);
        assertEquals(delivery.path().get().destination().toString().toLowerCase(), op.setEthDst());
        FabricHost h = plan.graph().host(delivery.path().get().destination()).get();
        assertEquals(h.port().toLong(), op.output().getAsLong());
    }

    @Test
    public void hostPairIngressMatchesBothMacsAndWritesTheShadowMac() throws Exception {
        PlannedRule pair = first(RuleKind.INGRESS_HOST_PAIR);
        RuleOp op = RuleTranslation.add(pair);
        assertEquals(Set.of("ethDst", "ethSrc"), op.match().keySet());
        assertEquals(pair.ethSrc().get().toString().toLowerCase(), op.match().get("ethSrc"));
        assertTrue(op.setEthDst().startsWith("02:70:"));
        ObjectNode json = op.toJson(mapper);
        assertEquals(mapper.readTree("{\"op\":\"add\",\"switch\":\"" + pair.device() + "\",\"priority\":31000,"
                + "\"match\":{\"ethDst\":\"" + op.match().get("ethDst") + "\",\"ethSrc\":\"" + op.match().get("ethSrc")
                + "\"},\"actions\":{\"setEthDst\":\"" + op.setEthDst() + "\",\"output\":" + pair.outPort().toLong()
                + "}}").toString(), json.toString());
    }

    @Test
    public void perFlowMoveMatchesTheFiveTupleAboveTheHostPairDefault() {
        List<FabricHost> hosts = new ArrayList<>(plan.graph().hosts());
        FabricHost s = hosts.get(0);
        FabricHost d = hosts.get(hosts.size() - 1);
        FlowKey flow = FlowKey.of(s.ips().iterator().next(), d.ips().iterator().next(), 6, 40001, 5001);
        int target = (plan.defaultPathIndex(s.mac(), d.mac()).getAsInt() + 1) % 4;
        RuleOp op = RuleTranslation.add(plan.flowRule(flow, s.mac(), d.mac(), target));
        assertEquals(32000, op.priority());
        assertEquals(s.edge(), op.device());
        assertEquals(Set.of("dport", "ethDst", "ipDst", "ipSrc", "proto", "sport"), op.match().keySet());
        assertEquals(s.ips().iterator().next().toString(), op.match().get("ipSrc"));
        assertEquals(40001, op.match().get("sport"));
        assertEquals(plan.tree(org.planck.api.fabric.ShadowPathId.of(d.mac(), target)).get().shadowMac()
                             .toString().toLowerCase(), op.setEthDst());
        assertTrue(op.priority() > RuleKind.INGRESS_HOST_PAIR.priority());
        ObjectNode json = op.toJson(mapper);
        assertEquals(6, json.get("match").get("proto").asInt());
        assertTrue(json.get("match").get("sport").isIntegralNumber());
    }

    @Test
    public void deleteCarriesTheMatchButNoActions() {
        PlannedRule pair = first(RuleKind.INGRESS_HOST_PAIR);
        RuleOp del = RuleTranslation.delete(pair);
        ObjectNode json = del.toJson(mapper);
        assertEquals("delete", json.get("op").asText());
        assertFalse(json.has("actions"));
        assertEquals(RuleTranslation.add(pair).ruleKey(), del.ruleKey());
    }

    @Test
    public void ruleKeyIsIndependentOfFieldOrderAndCase() {
        String a = RuleOp.ruleKey("of:1", 100, java.util.Map.of("ethDst", "AA:BB:CC:DD:EE:FF", "sport", 5));
        String b = RuleOp.ruleKey("of:1", 100, new java.util.TreeMap<>(java.util.Map.of("sport", 5L,
                                                                                          "ethDst", "aa:bb:cc:dd:ee:ff")));
        assertEquals(a, b);
        assertFalse(a.equals(RuleOp.ruleKey("of:1", 101, java.util.Map.of("ethDst", "aa:bb:cc:dd:ee:ff", "sport", 5))));
    }

    @Test(expected = IllegalArgumentException.class)
    public void anOpWithoutMatchIsRefused() {
        RuleOp.add(plan.graph().switches().get(0), 100, java.util.Map.of(), null, 1);
    }

    private PlannedRule first(RuleKind kind) {
        for (PlannedRule r : plan.rules()) {
            if (r.kind() == kind) {
                return r;
            }
        }
        throw new AssertionError("no rule of kind " + kind);
    }

    @SuppressWarnings("unused")
    private static IpAddress ip(String s) {
        return IpAddress.valueOf(s);
    }

    @SuppressWarnings("unused")
    private static MacAddress mac(String s) {
        return MacAddress.valueOf(s);
    }
}
