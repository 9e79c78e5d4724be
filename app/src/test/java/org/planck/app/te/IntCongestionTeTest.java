package org.planck.app.te;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Test;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;
import org.planck.api.config.CongestionSignal;
import org.planck.api.config.InvalidConfigException;
import org.planck.api.config.PlanckSettings;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.inband.IntPortState;
import org.planck.api.te.Reroute;
import org.planck.api.telemetry.CongestionSource;
import org.planck.api.telemetry.CongestionState;
import org.planck.api.telemetry.FlowRateEvent;
import org.planck.api.telemetry.IntPortSignal;
import org.planck.api.telemetry.PlanckCongestionEvent;
import org.planck.api.telemetry.PortCongestionNotice;
import org.planck.api.telemetry.RateEstimator;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.app.inband.IntPortStateManager;

import java.util.ArrayList;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.planck.app.TestConfigs.config;

/**
 * INT queue occupancy as TE's congestion signal, end to end on the k=4 fat tree: INT_PORT
 * batches -> INT port state -> congestion state (as the network config's congestionSignal
 * says) -> per-flow ingress rules. The flows' mirror-measured rates stay under the 50%
 * threshold throughout, so any move is the INT signal's doing.
 */
public class IntCongestionTeTest {
    /** 300 MB/s = 2.4 Gb/s: 24% of a 10 Gb/s link. */
    private static final double RATE = 300e6;
    private static final long QUEUE_THRESHOLD = 400;
    private TeLoopBed bed;
    private IntPortStateManager inband;
    private FabricHost src;
    private FabricHost dst;
    private long seq = 1000;
    private long reportUs = System.currentTimeMillis() * 1000;
    private final List<PlanckCongestionEvent> congestion = new ArrayList<>();

    @After
    public void tearDown() {
        if (inband != null) {
            inband.deactivateStandalone();
        }
        if (bed != null) {
            bed.stop();
        }
    }

    private static ObjectNode cfg(String signal) {
        ObjectNode c = config().k(4).threshold(50).json();
        c.put("rerouteDampingMs", 100);
        c.put("elephantThresholdPct", 0);
        if (signal != null) {
            c.put("congestionSignal", signal);
        }
        c.put("intQueueThreshold", QUEUE_THRESHOLD);
        c.put("intQueueHysteresis", 100);
        return c;
    }

    private void start(String signal) {
        bed = new TeLoopBed(cfg(signal), "PLANCK");
        inband = IntPortStateManager.standalone(bed.fabric.storage, bed.telemetry, bed.fabric.config, bed.clock,
                null);
        // What OSGi does for the optional reference.
        org.planck.app.FabricTestBed.set(bed.telemetry, "intSignalSink", inband);
        bed.telemetry.addListener(congestion::add);
        src = bed.host(0, 0, 0);
        dst = bed.host(2, 1, 1);
    }

    private FlowKey flow(int i) {
        return FlowKey.of(src.ips().iterator().next(), dst.ips().iterator().next(), 6, 40000 + i, 5201);
    }

    private ShadowPath defaultPath() {
        return bed.fabric.routes.chosenPath(src.mac(), dst.mac()).orElseThrow();
    }

    private ConnectPoint uplink() {
        return defaultPath().egressPorts().get(0);
    }

    private FlowRateEvent rate(FlowKey f, ConnectPoint at, double bytesPerSec) {
        long now = System.currentTimeMillis() * 1000;
        return new FlowRateEvent(f, at, dst.mac(), bytesPerSec, 20, now - 1000, now, RateEstimator.TCP_SEQ);
    }

    /** Two flows on the uplink at 24% + 12%: under the load view's 50%, so mirrors move nothing. */
    private void twoFlowsUnderThreshold() {
        bed.ingest(List.of(rate(flow(1), uplink(), RATE), rate(flow(2), uplink(), RATE * 0.5)));
        assertEquals(0, bed.flowRuleCount());
    }

    /** One v2 batch: the port's queue 0 occupancy and hop latency, as an INT collector sends them. */
    private void intReport(ConnectPoint port, long occupancy) {
        reportUs += 1000;
        IntPortSignal.Cause cause = seq == 1000 ? IntPortSignal.Cause.NEW_KEY : IntPortSignal.Cause.INTERVAL;
        List<IntPortSignal> signals = List.of(
                new IntPortSignal(port, IntPortSignal.Signal.QUEUE_OCCUPANCY, occupancy, 0, cause, reportUs),
                new IntPortSignal(port, IntPortSignal.Signal.HOP_LATENCY, 200 + occupancy * 10, -1, cause, reportUs));
        bed.telemetry.ingest(new TelemetryBatch("c1", seq++, System.currentTimeMillis() * 1000, List.of(),
                signals));
    }

    /** A queue building up on the port: 50, 150, 300 (under the 400 threshold), then 450, 600. */
    private void queueBuildsUpOn(ConnectPoint port, Runnable afterEachUnderThreshold) {
        for (long occupancy : new long[]{50, 150, 300}) {
            intReport(port, occupancy);
            afterEachUnderThreshold.run();
        }
        intReport(port, 450);
        intReport(port, 600);
    }

    @Test
    public void intQueueBuildingUpMovesFlowsOffThePort() {
        start("int");
        twoFlowsUnderThreshold();
        ConnectPoint up = uplink();
        queueBuildsUpOn(up, () -> assertEquals("no move while the queue is under the threshold", 0,
                bed.flowRuleCount()));

        List<Reroute> log = bed.reroutes.recent(10);
        assertFalse("a flow moved off the port whose queue built up", log.isEmpty());
        // Largest first: the 24% flow goes first (the log is newest first).
        assertEquals(flow(1), log.get(log.size() - 1).flow());
        for (Reroute r : log) {
            assertEquals(up, r.congestedPort().orElseThrow());
            ShadowPath to = bed.fabric.routes.paths(src.mac(), dst.mac()).stream()
                    .filter(p -> p.index() == r.toPath()).findFirst().orElseThrow();
            assertFalse("never onto the congested port", to.egressPorts().contains(up));
            assertEquals(r.toPath(), bed.fabric.routes.placements().get(r.flow()).pathIndex());
            assertTrue("the move is installed as an ingress rule",
                    bed.flowRule(src.edge(), r.flow()).isPresent());
        }
        assertTrue(bed.telemetry.congestedPorts().contains(up));
        PlanckCongestionEvent e = congestion.stream().filter(c -> c.subject().equals(up)).findFirst().orElseThrow();
        assertEquals(PlanckCongestionEvent.Type.CONGESTED, e.type());
        assertEquals(CongestionSource.INT_QUEUE, e.source());

        // The state the REST/CLI views show.
        IntPortState st = inband.port(up).orElseThrow();
        assertEquals(Long.valueOf(600), st.queues().get(0));
        assertEquals(6200, st.hopLatencyNs());
        assertTrue(st.queueCongested());

        // The queue drains: 350 is within the hysteresis (clears below 300), 250 clears.
        intReport(up, 350);
        assertTrue(bed.telemetry.congestedPorts().contains(up));
        intReport(up, 250);
        assertFalse(bed.telemetry.congestedPorts().contains(up));
        assertEquals(PlanckCongestionEvent.Type.CLEARED, congestion.get(congestion.size() - 1).type());
    }

    @Test
    public void withMirrorsAsTheSignalTheSameReportsMoveNothing() {
        start(null); // the default: mirrors
        assertEquals(CongestionSignal.MIRRORS, bed.fabric.config.settings().orElseThrow().congestionSignal());
        twoFlowsUnderThreshold();
        ConnectPoint up = uplink();
        queueBuildsUpOn(up, () -> { });
        assertEquals(0, bed.flowRuleCount());
        assertTrue(bed.reroutes.recent(10).isEmpty());
        assertFalse(bed.telemetry.congestedPorts().contains(up));
        assertTrue("no congestion event", congestion.isEmpty());
        bed.te.syncNow();
        assertEquals("the periodic relief moves nothing either", 0, bed.flowRuleCount());
        // The INT state is kept and marked all the same, for the views and a later switch of signal.
        assertTrue(inband.port(up).orElseThrow().queueCongested());
        assertEquals(Long.valueOf(600), inband.port(up).orElseThrow().queues().get(0));
    }

    @Test
    public void switchingTheSignalToIntActsOnAQueueAlreadyMarked() {
        start("mirrors");
        twoFlowsUnderThreshold();
        ConnectPoint up = uplink();
        queueBuildsUpOn(up, () -> { });
        assertEquals(0, bed.flowRuleCount());

        ObjectNode c = cfg("both");
        bed.fabric.configure(c);
        assertTrue(bed.telemetry.congestedPorts().contains(up));
        assertFalse("the congestion event of the switch moves flows", bed.reroutes.recent(10).isEmpty());

        // Back to mirrors: the port's INT mark no longer counts, its congestion clears.
        bed.fabric.configure(cfg("mirrors"));
        assertFalse(bed.telemetry.congestedPorts().contains(up));
        assertEquals(PlanckCongestionEvent.Type.CLEARED, congestion.get(congestion.size() - 1).type());
        assertEquals(CongestionSource.INT_QUEUE, congestion.get(congestion.size() - 1).source());
    }

    @Test
    public void withIntAsTheSignalMirrorCongestionMovesNothing() {
        start("int");
        twoFlowsUnderThreshold();
        ConnectPoint up = uplink();
        long now = System.currentTimeMillis() * 1000;
        // A collector's mirror notice at 90%, and the load view over 50%: neither counts.
        bed.ingest(List.of(new PortCongestionNotice(up, CongestionState.CONGESTED, 0.9, 9e9, 1e10, now - 200, now)));
        bed.ingest(List.of(rate(flow(3), up, RATE)));
        bed.te.syncNow();
        assertEquals(0, bed.flowRuleCount());
        assertFalse(bed.telemetry.congestedPorts().contains(up));
        // With both, the standing notice counts at once.
        bed.fabric.configure(cfg("both"));
        assertTrue(bed.telemetry.congestedPorts().contains(up));
        assertFalse(bed.reroutes.recent(10).isEmpty());
    }

    @Test
    public void badSignalSettingsAreRejectedAndChangeNothing() {
        start("int");
        PlanckSettings before = bed.fabric.config.settings().orElseThrow();
        ObjectNode bad = cfg("queues");
        try {
            bed.fabric.config.apply(bad);
            fail("an unknown congestion signal must be rejected");
        } catch (InvalidConfigException e) {
            assertEquals("congestionSignal must be one of \"mirrors\", \"int\", \"both\", got \"queues\"",
                    e.getMessage());
        }
        ObjectNode badHysteresis = cfg("mirrors");
        badHysteresis.put("intQueueHysteresis", QUEUE_THRESHOLD);
        try {
            bed.fabric.config.apply(badHysteresis);
            fail("a hysteresis as large as the threshold must be rejected");
        } catch (InvalidConfigException e) {
            assertEquals("intQueueHysteresis must be in [0, 399], got 400", e.getMessage());
        }
        assertEquals(before, bed.fabric.config.settings().orElseThrow());
        assertEquals(CongestionSignal.INT, bed.telemetry.congestionSignal());
        // Still acting on INT.
        twoFlowsUnderThreshold();
        queueBuildsUpOn(uplink(), () -> { });
        assertFalse(bed.reroutes.recent(10).isEmpty());
    }
}
