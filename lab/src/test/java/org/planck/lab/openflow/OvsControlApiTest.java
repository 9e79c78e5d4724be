package org.planck.lab.openflow;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.RuleKind;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;
import org.planck.lab.control.LabController;
import org.planck.lab.emu.CounterSnapshot;
import org.planck.lab.emu.EmulatorClient;
import org.planck.lab.emu.EmulatorException;
import org.planck.lab.emu.EmulatorTopology;
import org.planck.lab.emu.RuleOp;
import org.planck.lab.emu.RuleTranslation;
import org.planck.lab.ovs.OvsControlApi;
import org.planck.lab.ovs.OvsLabFabric;
import org.planck.lab.ovs.OvsMirrors;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFFlowModCommand;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The OVS lab's control API over OpenFlow, against 20 switches speaking OpenFlowJ over loopback:
 * the lab controller's plan goes in whole, counters come back under the lab's rule keys, and a
 * rule batch that a switch refuses, or whose switch is gone, is answered with an error and leaves
 * every other switch as it was: nothing half-installed without the caller being told.
 */
public class OvsControlApiTest {
    private static final long LINK = 2_500_000;
    private final OvsLabFabric fabric = OvsLabFabric.fatTree("t", LINK);
    private final RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(),
            LabController.PATHS_PER_DESTINATION)
            .plan(EmulatorTopology.parse(fabric.topologyJson(new ObjectMapper())).graph());
    private final Map<DeviceId, FakeOpenFlowSwitch> switches = new LinkedHashMap<>();
    private OpenFlowSouthbound southbound;
    private OvsControlApi api;
    private EmulatorClient client;

    @Before
    public void setUp() throws Exception {
        southbound = new OpenFlowSouthbound(new SwitchListener() { });
        int port = southbound.start(new InetSocketAddress("127.0.0.1", 0));
        for (OvsLabFabric.Bridge b : fabric.bridges()) {
            switches.put(b.device(), new FakeOpenFlowSwitch(EmulatorTopology.switchNumber(b.device()), port));
        }
        assertTrue(southbound.awaitProgrammed(switches.keySet(), Duration.ofSeconds(10)));
        api = new OvsControlApi(fabric, southbound, null, new OvsMirrors("unix:/nonexistent", List.of()),
                                new InetSocketAddress("127.0.0.1", 0));
        client = new EmulatorClient(api.uri());
        client.applyRules(RuleTranslation.addAll(plan.rules()));
    }

    @After
    public void tearDown() throws Exception {
        api.close();
        for (FakeOpenFlowSwitch s : switches.values()) {
            s.close();
        }
        southbound.close();
    }

    private FabricHost host(String ip) {
        return plan.graph().hostByIp(IpAddress.valueOf(ip)).orElseThrow();
    }

    /** A TE move: the flow's per-flow rule on its source edge, onto tree {@code index}. */
    private PlannedRule move(String src, String dst, int sport, int index) {
        FabricHost s = host(src);
        FabricHost d = host(dst);
        return plan.flowRule(FlowKey.of(s.ips().iterator().next(), d.ips().iterator().next(), 6, sport, 5001),
                             s.mac(), d.mac(), index);
    }

    private boolean holds(PlannedRule r) {
        for (OFFlowMod fm : switches.get(r.device()).table()) {
            if (fm.getMatch().equals(FlowModTranslation.match(r)) && fm.getPriority() == r.priority()
                    && fm.getInstructions().equals(FlowModTranslation.add(r, null, 0, 0).getInstructions())) {
                return true;
            }
        }
        return false;
    }

    @Test
    public void theLabControllersPlanIsInForceOnEverySwitch() {
        for (Map.Entry<DeviceId, FakeOpenFlowSwitch> e : switches.entrySet()) {
            assertEquals(e.getKey().toString(), plan.rulesAt(e.getKey()).size(), e.getValue().table().size());
        }
        assertEquals(1072, plan.ruleCount());
    }

    @Test
    public void aMoveIsRebuiltAsThePlansPerFlowRuleAndCountedUnderItsKey() {
        PlannedRule r = move("10.0.0.2", "10.2.0.2", 40001, 1);
        long appliedUs = client.applyRules(List.of(RuleTranslation.add(r)));
        assertTrue("in force after the request", appliedUs > 0);
        assertTrue(holds(r));
        CounterSnapshot c = client.counters();
        String key = RuleTranslation.add(r).ruleKey();
        assertTrue("per-flow rule counted under the lab's rule key", c.ruleBytes().containsKey(key));
        assertEquals(plan.ruleCount() + 1, c.ruleBytes().size());
    }

    @Test
    public void aBatchOneSwitchRefusesIsRolledBackOnTheOthersAndReported() {
        PlannedRule first = move("10.0.0.2", "10.2.0.2", 40001, 0);
        client.applyRules(List.of(RuleTranslation.add(first)));
        // One decision round moves two flows whose sources sit on different edges.
        PlannedRule a = move("10.0.0.2", "10.2.0.2", 40001, 1);
        PlannedRule b = move("10.1.0.2", "10.3.0.2", 40002, 1);
        assertFalse(a.device().equals(b.device()));
        switches.get(b.device()).refuse(fm -> fm.getCommand() == OFFlowModCommand.ADD
                && fm.getPriority() == RuleKind.INGRESS_FLOW.priority());
        try {
            client.applyRules(List.of(RuleTranslation.add(a), RuleTranslation.add(b)));
            fail("a refused batch must be answered with an error");
        } catch (EmulatorException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("refused"));
            assertTrue(e.getMessage(), e.getMessage().contains("rolled back on 2 switches"));
        }
        assertTrue("the first switch is back on the flow's earlier placement", holds(first));
        assertFalse(holds(a));
        assertFalse(holds(b));
        assertTrue(southbound.wantedRules(a.device()).contains(first));
        assertFalse(southbound.wantedRules(b.device()).contains(b));
    }

    @Test
    public void aBatchForADisconnectedSwitchIsReportedAndTheOthersAreRolledBack() throws Exception {
        PlannedRule a = move("10.0.0.2", "10.2.0.2", 40001, 1);
        PlannedRule b = move("10.1.0.2", "10.3.0.2", 40002, 1);
        switches.get(b.device()).close();
        for (int i = 0; i < 100 && southbound.connected().contains(b.device()); i++) {
            Thread.sleep(20);
        }
        try {
            client.applyRules(List.of(RuleTranslation.add(a), RuleTranslation.add(b)));
            fail("a batch for a switch that is down must be answered with an error");
        } catch (EmulatorException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("not connected"));
        }
        assertFalse("nothing of the batch stays on the switch that took it", holds(a));
        assertFalse(southbound.wantedRules(a.device()).contains(a));
        assertFalse("nor is it meant for the one that comes back", southbound.wantedRules(b.device()).contains(b));
    }

    @Test
    public void malformedOrUnknownOpsChangeNothing() {
        List<Integer> before = new ArrayList<>();
        switches.values().forEach(s -> before.add(s.flowMods().size()));
        PlannedRule held = plan.rulesAt(OvsLabFabric.device(13)).get(0);
        RuleOp stray = RuleOp.delete(held.device(), RuleKind.INGRESS_FLOW.priority(),
                                     RuleTranslation.match(move("10.0.0.2", "10.2.0.2", 49999, 0)));
        RuleOp wrongOutput = RuleOp.add(held.device(), held.priority(), RuleTranslation.match(held),
                                        held.setEthDst().map(MacAddress::toString).orElse(null),
                                        held.outPort().toLong() + 1);
        for (List<RuleOp> batch : List.of(List.of(RuleTranslation.add(held), stray),
                                          List.of(wrongOutput))) {
            try {
                client.applyRules(batch);
                fail("must be refused: " + batch);
            } catch (EmulatorException e) {
                assertEquals(400, e.status());
            }
        }
        List<Integer> after = new ArrayList<>();
        switches.values().forEach(s -> after.add(s.flowMods().size()));
        assertEquals("no flow-mod was sent", before, after);
    }
}
