package org.planck.app.te;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Test;
import org.onosproject.cluster.NodeId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DefaultPortStatistics;
import org.onosproject.net.flow.FlowRule;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.te.PlanckRerouteEvent;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteRejectedException;
import org.planck.api.te.TeMode;
import org.planck.api.telemetry.CongestionState;
import org.planck.api.telemetry.FlowRateEvent;
import org.planck.api.telemetry.PortCongestionNotice;
import org.planck.api.telemetry.RateEstimator;
import org.planck.app.te.algo.TeLoop;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.planck.app.TestConfigs.config;

/**
 * The TE loop end to end on a k=4 fat tree (10 Gb/s links, 4 shadow paths per host, threshold
 * 50%): collector batches -> flow state -> congestion -> per-flow ingress rules.
 */
public class PlanckTeManagerTest {
    /** 300 MB/s = 2.4 Gb/s: 24% of a link. */
    private static final double RATE = 300e6;
    private TeLoopBed bed;
    private FabricHost src;
    private FabricHost dst;
    private final List<PlanckRerouteEvent> events = new ArrayList<>();

    @After
    public void tearDown() {
        if (bed != null) {
            bed.stop();
        }
    }

    private static ObjectNode cfg(long dampingMs, boolean teEnabled) {
        ObjectNode c = config().k(4).threshold(50).json();
        c.put("rerouteDampingMs", dampingMs);
        c.put("teEnabled", teEnabled);
        // Plan with measured rates, so every utilisation below is exact (demand: its own test).
        c.put("elephantThresholdPct", 0);
        return c;
    }

    private void start(long dampingMs, boolean teEnabled, String mode) {
        start(cfg(dampingMs, teEnabled), mode);
    }

    private void start(ObjectNode config, String mode) {
        bed = new TeLoopBed(config, mode);
        bed.reroutes.addListener(events::add);
        // Pod 0 to pod 2: four cross-pod shadow paths, two per uplink of the source edge.
        src = bed.host(0, 0, 0);
        dst = bed.host(2, 1, 1);
    }

    private FlowKey flow(int i) {
        return FlowKey.of(src.ips().iterator().next(), dst.ips().iterator().next(), 6, 40000 + i, 5201);
    }

    private ShadowPath defaultPath() {
        return bed.fabric.routes.chosenPath(src.mac(), dst.mac()).orElseThrow();
    }

    /** The source edge's uplink on the flows' default path. */
    private ConnectPoint uplink() {
        return defaultPath().egressPorts().get(0);
    }

    private FlowRateEvent rate(FlowKey f, ConnectPoint at, double bytesPerSec) {
        long now = System.currentTimeMillis() * 1000;
        return new FlowRateEvent(f, at, dst.mac(), bytesPerSec, 20, now - 1000, now, RateEstimator.TCP_SEQ);
    }

    private PortCongestionNotice notice(ConnectPoint port, CongestionState state, double utilisation) {
        long now = System.currentTimeMillis() * 1000;
        return new PortCongestionNotice(port, state, utilisation, utilisation * 1e10, 1e10, now - 200, now);
    }

    /** The path a moved flow's rule now steers it onto, checked against the rule. */
    private ShadowPath assertSteered(FlowKey f, Reroute r) {
        FlowRule rule = bed.flowRule(src.edge(), f).orElseThrow(() -> new AssertionError("no rule for " + f));
        ShadowPath path = bed.fabric.routes.paths(src.mac(), dst.mac()).stream()
                .filter(p -> p.index() == r.toPath()).findFirst().orElseThrow();
        assertEquals("rule rewrites to the chosen path's shadow MAC", path.shadowMac(), TeLoopBed.rewrite(rule));
        assertEquals(path.shadowMac(), r.shadowMac());
        assertEquals("rule leaves by the path's first hop", path.egressPorts().get(0).port(),
                TeLoopBed.output(rule));
        return path;
    }

    @Test
    public void aLowConfidenceRateAloneMovesNothing() {
        start(100, true, "PLANCK");
        FlowKey a = flow(1);
        FlowKey b = flow(2);
        ConnectPoint up = uplink();
        long now = System.currentTimeMillis() * 1000;
        // 24% measured + 36% flagged low-confidence: over the 50% threshold only by the flagged rate.
        bed.ingest(List.of(rate(a, up, RATE), new FlowRateEvent(b, up, dst.mac(), RATE * 1.5, 20, now - 1000, now,
                RateEstimator.SAMPLED_BYTES, true)));
        assertTrue(bed.reroutes.recent(10).isEmpty());
        assertEquals(0, bed.flowRuleCount());
        // The same rate, counted (not flagged): the port is over the threshold and b moves.
        bed.ingest(List.of(new FlowRateEvent(b, up, dst.mac(), RATE * 1.5, 20, now - 500, now + 1,
                RateEstimator.SAMPLED_BYTES, false)));
        List<Reroute> log = bed.reroutes.recent(10);
        assertEquals(1, log.size());
        assertEquals(b, log.get(0).flow());
    }

    @Test
    public void collectorNoticeMovesFlowsOffTheCongestedPort() {
        start(100, true, "PLANCK");
        FlowKey a = flow(1);
        FlowKey b = flow(2);
        ConnectPoint up = uplink();
        // Two flows at 24% each: 48%, under the 50% load-view threshold, so nothing moves yet.
        bed.ingest(List.of(rate(a, up, RATE), rate(b, up, RATE * 0.5)));
        assertEquals(0, bed.flowRuleCount());
        assertEquals(TeMode.PLANCK, bed.te.mode());

        // The collector sees 90% on the uplink (traffic without flow estimates, too).
        bed.ingest(List.of(notice(up, CongestionState.CONGESTED, 0.9)));

        List<Reroute> log = bed.reroutes.recent(10);
        assertEquals("both flows moved, largest first", 2, log.size());
        assertEquals(b, log.get(0).flow()); // newest first
        assertEquals(a, log.get(1).flow());
        for (Reroute r : log) {
            assertEquals(up, r.congestedPort().orElseThrow());
            assertEquals(defaultPath().index(), r.fromPath());
            ShadowPath to = assertSteered(r.flow(), r);
            assertFalse("never onto the congested port", to.egressPorts().contains(up));
            assertEquals(r.toPath(), bed.te.pathIndex(r.flow()));
            assertEquals(r.toPath(), bed.fabric.routes.placements().get(r.flow()).pathIndex());
        }
        assertEquals(2, bed.flowRuleCount());
        assertEquals(2, events.size());
        assertTrue(events.stream().allMatch(e -> e.type() == PlanckRerouteEvent.Type.FLOW_REROUTED));
        assertEquals(2, bed.reroutes.rerouteCount());
        String metrics = bed.metrics.exposition();
        assertTrue(metrics, metrics.contains("planck_te_decision_latency_seconds_count 2.0"));
        assertTrue(metrics, metrics.contains("planck_reroutes_total 2.0"));
    }

    @Test
    public void loadViewCrossingTheThresholdMovesTheLargestFlow() {
        start(100, true, "PLANCK");
        FlowKey a = flow(1);
        FlowKey b = flow(2);
        ConnectPoint up = uplink();
        // 24% + 36% = 60% > 50%: the telemetry load view declares the port congested on ingest.
        bed.ingest(List.of(rate(a, up, RATE), rate(b, up, RATE * 1.5)));
        List<Reroute> log = bed.reroutes.recent(10);
        assertEquals("one move brings the port to 24%", 1, log.size());
        assertEquals(b, log.get(0).flow());
        assertFalse(assertSteered(b, log.get(0)).egressPorts().contains(up));
        assertFalse(bed.flowRule(src.edge(), a).isPresent());
    }

    @Test
    public void loadSyncPlansElephantsWithTheirDemand() {
        ObjectNode c = cfg(100, true);
        c.remove("elephantThresholdPct");
        start(c, "PLANCK");
        FlowKey a = flow(1);
        FlowKey b = flow(2);
        ConnectPoint up = uplink();
        // Two elephants of the same hosts: each demands half the hosts' 10 Gb/s links, together
        // all of the uplink, which carries exactly that. Splitting them would gain nothing.
        bed.ingest(List.of(rate(a, up, RATE), rate(b, up, RATE * 0.5)));
        bed.te.syncNow();
        assertEquals(0, bed.reroutes.rerouteCount());
        // A third elephant, from a neighbour of the source to another pod, whose default path
        // also leaves by this uplink: 24% + 12% + 12% = 48% measured, under the 50% threshold,
        // so the telemetry view sees no congestion. But it demands its hosts' whole 10 Gb/s: the
        // uplink (and whatever more of the way they share) is wanted at 200%. The load sync moves
        // the largest demand, the newcomer, and what is left fits: the two others stay.
        FabricHost[] other = neighbourSharingTheUplink();
        FlowKey third = FlowKey.of(other[0].ips().iterator().next(), other[1].ips().iterator().next(), 6, 40003, 5201);
        long now = System.currentTimeMillis() * 1000;
        bed.ingest(List.of(new FlowRateEvent(third, up, other[1].mac(), RATE * 0.5, 20, now - 1000, now,
                                             RateEstimator.TCP_SEQ)));
        assertEquals(0, bed.reroutes.rerouteCount());
        bed.te.syncNow();
        assertEquals(1, bed.reroutes.rerouteCount());
        Reroute r = bed.reroutes.recent(1).get(0);
        assertEquals(third, r.flow());
        // Relieved at the first port of the shared stretch found over the threshold.
        assertTrue(defaultPath().egressPorts().contains(r.congestedPort().orElseThrow()));
        assertFalse(bed.flowRule(src.edge(), a).isPresent());
        assertFalse(bed.flowRule(src.edge(), b).isPresent());
        FlowRule rule = bed.flowRule(src.edge(), third).orElseThrow();
        assertNotEquals(up.port(), TeLoopBed.output(rule));
        bed.te.syncNow();
        assertEquals("nothing more to gain", 1, bed.reroutes.rerouteCount());
    }

    /** A host on the source's edge and a destination in another pod whose default path leaves by the uplink. */
    private FabricHost[] neighbourSharingTheUplink() {
        FabricHost s = bed.host(0, 0, 1);
        for (int pod = 1; pod < 4; pod++) {
            for (int e = 0; e < 2; e++) {
                for (int h = 0; h < 2; h++) {
                    FabricHost d = bed.host(pod, e, h);
                    if (d.equals(dst)) {
                        continue;
                    }
                    ShadowPath p = bed.fabric.routes.chosenPath(s.mac(), d.mac()).orElseThrow();
                    if (p.egressPorts().get(0).equals(uplink())) {
                        return new FabricHost[]{s, d};
                    }
                }
            }
        }
        throw new AssertionError("no destination whose default path shares the uplink");
    }

    @Test
    public void aNoticedUtilisationCountsOnceForTheNextRelief() {
        start(100, true, "STATIC");
        FlowKey a = flow(1);
        FlowKey b = flow(2);
        ConnectPoint up = uplink();
        // 24% + 12% measured on the uplink (demand = measured rate here): under the 50% threshold.
        bed.ingest(List.of(rate(a, up, RATE), rate(b, up, RATE * 0.5)));
        // The same loop the component runs, driven directly (the component is in STATIC mode).
        TeLoop loop = new TeLoop(bed.fabric.routes, bed.telemetry, bed.reroutes, l -> { });
        loop.configure(0.5, 100, 0);
        loop.setMode(TeMode.PLANCK);
        loop.sync();
        assertEquals(0.36, loop.utilisation(up), 1e-9);
        // A notice says 90% (traffic the estimates miss). This node does not act yet: it marks.
        // The view is not changed by it: the measurement is one noisy moment.
        assertTrue(loop.onNotice(up, true, OptionalDouble.of(0.9), false, System.nanoTime()).isEmpty());
        assertEquals(0.36, loop.utilisation(up), 1e-9);
        assertTrue(loop.isCongested(up));
        // The next relief of the marked port uses it. The 54% no known flow accounts for stays
        // on the port whatever moves, and is over the threshold alone: both flows move, the
        // larger first.
        List<Reroute> moved = loop.relieveOverloaded(loop.congestedPorts(), System.nanoTime());
        assertEquals(2, moved.size());
        assertEquals(a, moved.get(0).flow());
        assertEquals(b, moved.get(1).flow());
        assertEquals(up, moved.get(0).congestedPort().orElseThrow());
        // Once: the following check sees the view (nothing left on the port) and does nothing.
        assertEquals(0.0, loop.utilisation(up), 1e-9);
        assertTrue(loop.relieveOverloaded(loop.congestedPorts(), System.nanoTime()).isEmpty());
        // CLEARED lifts the mark.
        loop.onNotice(up, false, OptionalDouble.of(0.3), true, System.nanoTime());
        assertFalse(loop.isCongested(up));
    }

    /** A moved flow's new path gets congested further along: with damping it stays put. */
    private int secondMoveAfterCongestionOnNewPath(long dampingMs) {
        start(dampingMs, true, "PLANCK");
        FlowKey a = flow(1);
        ConnectPoint up = uplink();
        bed.ingest(List.of(rate(a, up, RATE)));
        bed.ingest(List.of(notice(up, CongestionState.CONGESTED, 0.9)));
        assertEquals(1, bed.reroutes.rerouteCount());
        ShadowPath now = assertSteered(a, bed.reroutes.recent(1).get(0));
        // Its aggregation-to-core hop: the other path through the same uplink avoids it.
        ConnectPoint aggUp = now.egressPorts().get(1);
        bed.ingest(List.of(rate(a, aggUp, RATE), notice(aggUp, CongestionState.CONGESTED, 0.95)));
        return (int) bed.reroutes.rerouteCount() - 1;
    }

    @Test
    public void dampedFlowStaysPut() {
        assertEquals(0, secondMoveAfterCongestionOnNewPath(60_000));
    }

    @Test
    public void undampedFlowMovesAgainButNeverOntoACongestedPort() {
        assertEquals(1, secondMoveAfterCongestionOnNewPath(0));
        Reroute second = bed.reroutes.recent(1).get(0);
        ShadowPath to = assertSteered(flow(1), second);
        assertFalse(to.egressPorts().contains(uplink()));
    }

    @Test
    public void staticModeEmitsNoMoves() {
        start(100, true, "STATIC");
        ConnectPoint up = uplink();
        bed.ingest(List.of(rate(flow(1), up, RATE * 2), rate(flow(2), up, RATE * 2)));
        bed.ingest(List.of(notice(up, CongestionState.CONGESTED, 0.99)));
        bed.te.syncNow();
        assertEquals(TeMode.STATIC, bed.te.mode());
        assertEquals(0, bed.flowRuleCount());
        assertEquals(0, bed.reroutes.rerouteCount());
    }

    @Test
    public void enteringStaticRemovesPlacements() {
        start(100, true, "PLANCK");
        ConnectPoint up = uplink();
        bed.ingest(List.of(rate(flow(1), up, RATE), notice(up, CongestionState.CONGESTED, 0.9)));
        assertEquals(1, bed.flowRuleCount());
        bed.te.setMode(TeMode.STATIC);
        assertEquals(TeMode.STATIC, bed.te.mode());
        assertEquals(0, bed.flowRuleCount());
        assertTrue(bed.fabric.routes.placements().isEmpty());
        assertEquals(defaultPath().index(), bed.te.pathIndex(flow(1)));
    }

    @Test
    public void teDisabledInNetcfgForcesStatic() {
        start(100, false, "PLANCK");
        assertEquals(TeMode.PLANCK, bed.te.requestedMode());
        assertEquals(TeMode.STATIC, bed.te.mode());
        assertFalse(bed.te.teEnabled());
        ConnectPoint up = uplink();
        bed.ingest(List.of(rate(flow(1), up, RATE * 3), notice(up, CongestionState.CONGESTED, 0.99)));
        bed.te.setMode(TeMode.POLL);
        assertEquals(TeMode.STATIC, bed.te.mode());
        assertEquals(0, bed.flowRuleCount());
        // Turning TE back on in netcfg restores the requested mode.
        bed.fabric.configure(cfg(100, true));
        assertEquals(TeMode.POLL, bed.te.mode());
    }

    @Test
    public void pollModeActsOnPortStatisticsOnly() {
        start(100, true, "POLL");
        FlowKey a = flow(1);
        ConnectPoint up = uplink();
        bed.ingest(List.of(rate(a, up, RATE)));
        bed.te.syncNow();
        // Collector notices do not drive the Poll baseline.
        bed.ingest(List.of(notice(up, CongestionState.CONGESTED, 0.9)));
        assertEquals(0, bed.flowRuleCount());
        // Port counters: 1 GB in one second on a 10 Gb/s uplink = 80%.
        DeviceId edge = up.deviceId();
        bed.deltas.put(edge, List.of(DefaultPortStatistics.builder().setDeviceId(edge).setPort(up.port())
                .setBytesSent(1_000_000_000L).setDurationSec(1).setDurationNano(0).build()));
        assertTrue(bed.te.pollNow() >= 1);
        List<Reroute> log = bed.reroutes.recent(10);
        assertEquals(1, log.size());
        assertEquals(up, log.get(0).congestedPort().orElseThrow());
        assertFalse(assertSteered(a, log.get(0)).egressPorts().contains(up));
    }

    @Test
    public void onlyTheLeaderMovesFlows() {
        start(100, true, "PLANCK");
        bed.leader = NodeId.nodeId("other");
        ConnectPoint up = uplink();
        bed.ingest(List.of(rate(flow(1), up, RATE), notice(up, CongestionState.CONGESTED, 0.9)));
        bed.te.syncNow();
        assertEquals(0, bed.flowRuleCount());
        bed.leader = bed.localNode;
        bed.te.syncNow(); // the new leader relieves the port still congested
        assertEquals(1, bed.flowRuleCount());
    }

    @Test
    public void manualRerouteMovesAFlowAndRejectsBadRequests() throws Exception {
        start(100, true, "STATIC");
        FlowKey a = flow(1);
        bed.ingest(List.of(rate(a, uplink(), RATE)));
        int from = defaultPath().index();
        int to = (from + 1) % 4;
        Reroute r = bed.te.reroute(a, to);
        assertEquals(from, r.fromPath());
        assertEquals(to, r.toPath());
        assertFalse(r.congestedPort().isPresent());
        assertSteered(a, r);
        assertEquals(PlanckRerouteEvent.Type.FLOW_REROUTED_MANUALLY, events.get(0).type());

        Map<DeviceId, List<FlowRule>> before = bed.fabric.flowRules.snapshot();
        try {
            bed.te.reroute(flow(9), 0);
            fail("unknown flow accepted");
        } catch (RerouteRejectedException e) {
            assertEquals(RerouteRejectedException.Reason.UNKNOWN_FLOW, e.reason());
        }
        for (int bad : new int[]{4, 99, -1}) {
            try {
                bed.te.reroute(a, bad);
                fail("path " + bad + " accepted");
            } catch (RerouteRejectedException e) {
                assertEquals(RerouteRejectedException.Reason.PATH_OUT_OF_RANGE, e.reason());
            }
        }
        assertEquals(before, bed.fabric.flowRules.snapshot());
        assertEquals(1, bed.reroutes.rerouteCount());
        assertEquals(to, bed.te.pathIndex(a));
    }

    @Test
    public void flowsOfUnknownHostsAreNotTracked() {
        start(100, true, "PLANCK");
        FlowKey stranger = FlowKey.of(org.onlab.packet.IpAddress.valueOf("192.0.2.1"),
                dst.ips().iterator().next(), 6, 1, 2);
        bed.ingest(List.of(rate(stranger, uplink(), RATE), rate(flow(1), uplink(), RATE)));
        assertEquals(1, bed.te.syncNow());
        assertNotEquals(-1, bed.te.pathIndex(flow(1)));
        assertEquals(-1, bed.te.pathIndex(stranger));
    }

    @Test
    public void loadViewFollowsFlowStateIncludingExpiry() {
        start(100, true, "PLANCK");
        ConnectPoint up = uplink();
        bed.ingest(List.of(rate(flow(1), up, RATE * 0.1), rate(flow(2), up, RATE * 0.1)));
        assertEquals(2, bed.te.syncNow());
        assertEquals(defaultPath().index(), bed.te.pathIndex(flow(1)));
        bed.clock.advanceMillis(1000);
        bed.ingest(List.of(rate(flow(2), up, RATE * 0.2)));
        bed.clock.advanceMillis(1500); // flow 1 idle 2.5 s, flow 2 1.5 s: only flow 1 expires
        assertEquals(1, bed.telemetry.expireIdle());
        assertEquals(1, bed.te.syncNow());
        assertEquals(-1, bed.te.pathIndex(flow(1)));
        bed.clock.advanceMillis(3000);
        bed.telemetry.expireIdle();
        assertEquals(0, bed.te.syncNow());
        assertEquals(0, bed.te.trackedFlows());
    }

    @Test
    public void newPlanKeepsTheLoadViewAndDampingOfMovedFlows() {
        assertEquals("damped flow stays put after the re-plan", 1, rerouteAfterReplan(60_000));
    }

    @Test
    public void newPlanUndampedFlowMovesAgain() {
        assertEquals(2, rerouteAfterReplan(0));
    }

    private long rerouteAfterReplan(long dampingMs) {
        start(dampingMs, true, "PLANCK");
        FlowKey a = flow(1);
        ConnectPoint up = uplink();
        bed.ingest(List.of(rate(a, up, RATE), notice(up, CongestionState.CONGESTED, 0.9)));
        Reroute r = bed.reroutes.recent(1).get(0);
        ShadowPath moved = assertSteered(a, r);
        // Kill the moved path's aggregation-to-core link: routing re-plans and fixes the placement.
        ConnectPoint dead = moved.egressPorts().get(1);
        bed.fabric.links.cut(dead, bed.fabric.links.link(dead).dst());
        assertEquals(1, bed.te.syncNow());
        int placed = bed.fabric.routes.placements().get(a).pathIndex();
        assertEquals(placed, bed.te.pathIndex(a));
        ShadowPath now = bed.fabric.routes.plan().orElseThrow().path(src.mac(), dst.mac(), placed).orElseThrow();
        assertFalse(now.egressPorts().contains(dead));
        // A new congestion on the flow's path: only an undamped flow moves.
        // The first congestion is over; pick a port of the flow's path that some alternative avoids.
        bed.ingest(List.of(notice(up, CongestionState.CLEARED, 0.3)));
        ConnectPoint next = null;
        for (ConnectPoint c : now.egressPorts()) {
            for (ShadowPath q : bed.fabric.routes.paths(src.mac(), dst.mac())) {
                if (q.index() != placed && !q.egressPorts().contains(c)) {
                    next = c;
                }
            }
        }
        assertTrue("scenario has an alternative", next != null);
        bed.ingest(List.of(rate(a, next, RATE), notice(next, CongestionState.CONGESTED, 0.95)));
        return bed.reroutes.rerouteCount();
    }
}
