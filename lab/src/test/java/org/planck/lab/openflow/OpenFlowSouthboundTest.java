package org.planck.lab.openflow;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.net.DeviceId;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.app.routing.algo.FatTreeFabric;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;
import org.projectfloodlight.openflow.protocol.OFEchoReply;
import org.projectfloodlight.openflow.protocol.OFFlowAdd;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFFlowModCommand;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFType;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The southbound against fake switches speaking OpenFlowJ over loopback: handshake to device id,
 * echo, flow-mods in force only at the barrier reply, refusals reported with their rule and not
 * kept, port statistics over two multipart parts, and a reconnecting switch wiped and given its
 * rules again.
 */
public class OpenFlowSouthboundTest {
    private static final long TIMEOUT_S = 5;
    private final RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4)
            .plan(FatTreeFabric.of(4).graph());
    private final DeviceId edge = FatTreeFabric.edgeId(0, 0);
    private final long edgeDpid = Long.parseUnsignedLong(edge.toString().substring(3), 16);
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    private final List<RuleRejection> rejections = new ArrayList<>();
    private OpenFlowSouthbound southbound;
    private int port;
    private final List<FakeOpenFlowSwitch> switches = new ArrayList<>();

    @Before
    public void setUp() throws Exception {
        southbound = new OpenFlowSouthbound(new SwitchListener() {
            @Override
            public void connected(DeviceId device) {
                events.add("connected " + device);
            }

            @Override
            public void disconnected(DeviceId device, String reason) {
                events.add("disconnected " + device);
            }

            @Override
            public void programmed(InstallResult result) {
                events.add("programmed " + result.device() + " " + result.flowMods());
            }

            @Override
            public void rejected(RuleRejection r) {
                synchronized (rejections) {
                    rejections.add(r);
                }
                events.add("rejected " + r.xid());
            }
        });
        port = southbound.start(new InetSocketAddress("127.0.0.1", 0));
    }

    @After
    public void tearDown() throws Exception {
        for (FakeOpenFlowSwitch s : switches) {
            s.close();
        }
        southbound.close();
    }

    private FakeOpenFlowSwitch connect(long dpid) throws Exception {
        FakeOpenFlowSwitch s = new FakeOpenFlowSwitch(dpid, port);
        switches.add(s);
        return s;
    }

    private String nextEvent() throws InterruptedException {
        String e = events.poll(TIMEOUT_S, TimeUnit.SECONDS);
        assertNotNull("no event within " + TIMEOUT_S + " s", e);
        return e;
    }

    @Test
    public void handshakeNamesTheSwitchByDatapathIdAndWipesItsTable() throws Exception {
        FakeOpenFlowSwitch sw = connect(edgeDpid);
        assertEquals("connected " + edge, nextEvent());
        assertEquals("programmed " + edge + " 1", nextEvent());
        assertEquals(Set.of(edge), southbound.connected());
        OFFlowMod wipe = sw.flowMods().get(0);
        assertEquals(OFFlowModCommand.DELETE, wipe.getCommand());
        assertEquals(0xff, wipe.getTableId().getValue());
    }

    @Test
    public void echoRequestIsAnsweredWithItsXidAndData() throws Exception {
        FakeOpenFlowSwitch sw = connect(edgeDpid);
        assertEquals("connected " + edge, nextEvent());
        // A switch's echo goes into the reply unchanged.
        sw.send(FlowModTranslation.OF13.buildEchoRequest().setXid(0xabcdef).setData(new byte[]{1, 2, 3}).build());
        OFMessage m;
        do {
            m = sw.received().poll(TIMEOUT_S, TimeUnit.SECONDS);
            assertNotNull("no echo reply", m);
        } while (m.getType() != OFType.ECHO_REPLY);
        OFEchoReply r = (OFEchoReply) m;
        assertEquals(0xabcdef, r.getXid());
        assertEquals(3, r.getData().length);
        assertEquals(2, r.getData()[1]);
    }

    @Test
    public void rulesAreInForceOnlyWhenTheBarrierIsAnswered() throws Exception {
        FakeOpenFlowSwitch sw = connect(edgeDpid);
        assertTrue(southbound.awaitProgrammed(Set.of(edge), Duration.ofSeconds(TIMEOUT_S)));
        sw.holdBarriers(true);
        List<PlannedRule> rules = plan.rulesAt(edge);
        CompletableFuture<InstallResult> done = southbound.install(edge, rules, List.of());
        // Every flow-mod reached the switch before the barrier, yet the batch is not in force.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (sw.flowMods().size() < rules.size() + 1 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(rules.size() + 1, sw.flowMods().size());
        Thread.sleep(100);
        assertFalse("in force before the barrier reply", done.isDone());
        sw.holdBarriers(false);
        InstallResult result = done.get(TIMEOUT_S, TimeUnit.SECONDS);
        assertTrue(result.allInForce());
        assertEquals(rules.size(), result.flowMods());
        assertTrue(result.inForceNanos() >= result.sentNanos());
        assertEquals(rules.size(), sw.table().size());
        Set<Object> matches = new HashSet<>();
        for (OFFlowMod fm : sw.table()) {
            assertTrue(fm instanceof OFFlowAdd);
            matches.add(fm.getMatch());
        }
        for (PlannedRule r : rules) {
            assertTrue("rule missing on the switch: " + r, matches.contains(FlowModTranslation.match(r)));
        }
    }

    @Test
    public void refusedFlowModIsReportedWithItsRuleAndNotKept() throws Exception {
        FakeOpenFlowSwitch sw = connect(edgeDpid);
        assertTrue(southbound.awaitProgrammed(Set.of(edge), Duration.ofSeconds(TIMEOUT_S)));
        List<PlannedRule> rules = plan.rulesAt(edge);
        PlannedRule bad = rules.get(2);
        sw.refuse(fm -> fm.getMatch().equals(FlowModTranslation.match(bad)));
        InstallResult result = southbound.install(edge, rules, List.of()).get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(1, result.rejections().size());
        RuleRejection r = result.rejections().get(0);
        assertEquals(bad, r.rule().orElseThrow());
        assertEquals(edge, r.device());
        assertEquals("FLOW_MOD_FAILED", r.errorType());
        assertEquals("BAD_TABLE_ID", r.code());
        assertEquals(1, southbound.rejectionCount());
        List<PlannedRule> wanted = southbound.wantedRules(edge);
        assertEquals(rules.size() - 1, wanted.size());
        assertFalse("a refused rule is not believed installed", wanted.contains(bad));
        assertEquals(rules.size() - 1, sw.table().size());
    }

    @Test
    public void portStatisticsAreCollectedOverMultipartReplies() throws Exception {
        connect(edgeDpid);
        assertTrue(southbound.awaitProgrammed(Set.of(edge), Duration.ofSeconds(TIMEOUT_S)));
        Map<Long, PortCounters> stats = southbound.portStats(edge).get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(Set.of(1L, 2L, 3L), stats.keySet());
        assertEquals(300, stats.get(3L).rxPackets());
        assertEquals(301 * 1500, stats.get(3L).txBytes());
        assertEquals(2, stats.get(2L).txDropped());
    }

    @Test
    public void flowStatisticsNameEachEntryByMatchAndPriority() throws Exception {
        connect(edgeDpid);
        assertTrue(southbound.awaitProgrammed(Set.of(edge), Duration.ofSeconds(TIMEOUT_S)));
        List<PlannedRule> rules = plan.rulesAt(edge).subList(0, 3);
        southbound.install(edge, rules, List.of()).get(TIMEOUT_S, TimeUnit.SECONDS);
        List<FlowCounter> counters = southbound.flowStats(edge).get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(3, counters.size());
        Set<Long> packets = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            FlowCounter c = counters.get(i);
            assertEquals(FlowModTranslation.match(rules.get(i)), c.match());
            assertEquals(rules.get(i).priority(), c.priority());
            assertEquals(100 * c.packets(), c.bytes());
            packets.add(c.packets());
        }
        assertEquals("cookies differ per rule", 3, packets.size());
    }

    @Test
    public void reconnectingSwitchIsWipedAndGivenItsRulesAgain() throws Exception {
        FakeOpenFlowSwitch first = connect(edgeDpid);
        assertTrue(southbound.awaitProgrammed(Set.of(edge), Duration.ofSeconds(TIMEOUT_S)));
        List<PlannedRule> rules = plan.rulesAt(edge);
        assertTrue(southbound.install(edge, rules, List.of()).get(TIMEOUT_S, TimeUnit.SECONDS).allInForce());
        events.clear();
        first.close();
        assertEquals("disconnected " + edge, nextEvent());
        // While the switch is down a rule changes: the change is kept and goes in on reconnect.
        PlannedRule removed = rules.get(0);
        try {
            southbound.install(edge, List.of(), List.of(removed)).get(TIMEOUT_S, TimeUnit.SECONDS);
            fail("install on a disconnected switch must fail");
        } catch (ExecutionException e) {
            assertTrue(e.getCause() instanceof SwitchUnavailableException);
        }
        FakeOpenFlowSwitch second = connect(edgeDpid);
        assertEquals("connected " + edge, nextEvent());
        assertEquals("programmed " + edge + " " + rules.size(), nextEvent());
        assertEquals(OFFlowModCommand.DELETE, second.flowMods().get(0).getCommand());
        assertEquals(rules.size() - 1, second.table().size());
        for (OFFlowMod fm : second.table()) {
            assertFalse(fm.getMatch().equals(FlowModTranslation.match(removed)));
        }
    }

    @Test
    public void pendingBarrierFailsWhenTheSwitchDisconnects() throws Exception {
        FakeOpenFlowSwitch sw = connect(edgeDpid);
        assertTrue(southbound.awaitProgrammed(Set.of(edge), Duration.ofSeconds(TIMEOUT_S)));
        sw.holdBarriers(true);
        CompletableFuture<InstallResult> done = southbound.install(edge, plan.rulesAt(edge), List.of());
        Thread.sleep(50);
        sw.close();
        try {
            done.get(TIMEOUT_S, TimeUnit.SECONDS);
            fail("a batch whose barrier was never answered must not be reported in force");
        } catch (ExecutionException e) {
            assertTrue(e.getCause() instanceof SwitchUnavailableException);
        }
    }

    @Test
    public void undecodableFrameIsCountedAndSkipped() throws Exception {
        FakeOpenFlowSwitch sw = connect(edgeDpid);
        assertTrue(southbound.awaitProgrammed(Set.of(edge), Duration.ofSeconds(TIMEOUT_S)));
        // Version 4, type 200 (no such message), length 12: framed but unparseable.
        sw.sendRaw(new byte[]{4, (byte) 200, 0, 12, 0, 0, 0, 9, 1, 2, 3, 4});
        InstallResult r = southbound.install(edge, plan.rulesAt(edge).subList(0, 1), List.of())
                .get(TIMEOUT_S, TimeUnit.SECONDS);
        assertTrue("the connection survives a skipped frame", r.allInForce());
        assertEquals(1, southbound.undecodableCount());
        // A length below the header loses the framing: the connection is dropped.
        events.clear();
        sw.sendRaw(new byte[]{4, 0, 0, 4, 0, 0, 0, 1});
        assertEquals("disconnected " + edge, nextEvent());
        assertEquals(2, southbound.undecodableCount());
    }

    @Test
    public void ruleForAnotherSwitchIsRefusedBeforeAnythingChanges() throws Exception {
        PlannedRule foreign = plan.rulesAt(FatTreeFabric.coreId(0)).get(0);
        try {
            southbound.install(edge, List.of(foreign), List.of());
            fail("rule for another device accepted");
        } catch (IllegalArgumentException e) {
            assertTrue(southbound.wantedRules(edge).isEmpty());
        }
    }

    @Test
    public void flowOutputMirrorIsAddedToRulesOfThatSwitchOnly() throws Exception {
        FakeOpenFlowSwitch sw = connect(edgeDpid);
        assertTrue(southbound.awaitProgrammed(Set.of(edge), Duration.ofSeconds(TIMEOUT_S)));
        southbound.setFlowOutputMirror(edge, new FlowModTranslation.FlowOutputMirror(5, 300));
        PlannedRule r = plan.rulesAt(edge).get(0);
        southbound.install(edge, List.of(r), List.of()).get(TIMEOUT_S, TimeUnit.SECONDS);
        OFFlowAdd add = (OFFlowAdd) sw.table().get(0);
        List<String> acts = FlowModTranslationTest.actions(add);
        assertEquals(List.of("output " + r.outPort().toLong(), "push_vlan 0x8100", "set vlan_vid=300", "output 5"),
                     acts.subList(acts.size() - 4, acts.size()));
        FakeOpenFlowSwitch other = connect(Long.parseUnsignedLong(FatTreeFabric.coreId(0).toString().substring(3), 16));
        DeviceId core = FatTreeFabric.coreId(0);
        assertTrue(southbound.awaitProgrammed(Set.of(core), Duration.ofSeconds(TIMEOUT_S)));
        PlannedRule cr = plan.rulesAt(core).get(0);
        southbound.install(core, List.of(cr), List.of()).get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(List.of("output " + cr.outPort().toLong()), FlowModTranslationTest.actions((OFFlowAdd) other.table().get(0)));
    }
}
