package org.planck.lab.control;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;
import org.planck.api.config.CongestionSignal;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.te.TeMode;
import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.IntPortSignal;
import org.planck.api.telemetry.TelemetryBatchCodec;
import org.planck.lab.FakeFabric;
import org.planck.lab.emu.EmulatorClient;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

/**
 * INT queue occupancy as the lab controller's congestion signal: the app's queue rules decide the
 * mark, TE moves a flow off a port whose queue INT reports building (congestion signal int or
 * both), and the mirror-derived triggers are off under int, as in the app.
 */
public class IntQueueCongestionTest {
    private static final ConnectPoint PORT = ConnectPoint.deviceConnectPoint("of:0000000000000001/3");
    private FakeFabric fabric;
    private EmulatorClient emu;
    private final LoopLatencyLog latencies = new LoopLatencyLog(100);
    private final TelemetryBatchCodec codec = new TelemetryBatchCodec();

    @Before
    public void start() throws Exception {
        fabric = FakeFabric.fatTree(1_000_000_000L);
        emu = new EmulatorClient(fabric.control());
    }

    @After
    public void stop() {
        fabric.close();
    }

    private static IntPortSignal queue(ConnectPoint port, long occupancy, long reportUs) {
        return new IntPortSignal(port, IntPortSignal.Signal.QUEUE_OCCUPANCY, occupancy, 3,
                                 IntPortSignal.Cause.INTERVAL, reportUs);
    }

    @Test
    public void theQueueThresholdAndHysteresisDecideTheMark() {
        IntQueueCongestion q = new IntQueueCongestion(CongestionSignal.INT, 24, 16);
        assertEquals(Optional.empty(), q.apply(queue(PORT, 20, 1), "c", 0));
        assertEquals(Optional.of(true), q.apply(queue(PORT, 24, 2), "c", 0));
        assertEquals(Optional.empty(), q.apply(queue(PORT, 40, 3), "c", 0));
        // Still above 24 - 16.
        assertEquals(Optional.empty(), q.apply(queue(PORT, 8, 4), "c", 0));
        // Older than the newest applied: stale, changes nothing.
        assertEquals(Optional.empty(), q.apply(queue(PORT, 0, 3), "c", 0));
        assertEquals(1, q.stale());
        assertEquals(Optional.of(false), q.apply(queue(PORT, 7, 5), "c", 0));
        assertEquals(1, q.congestions());
        assertEquals(6, q.signals());
        assertFalse(q.port(PORT).get().queueCongested());
    }

    @Test
    public void underMirrorsTheMarkIsKeptButNeverReported() {
        IntQueueCongestion q = new IntQueueCongestion(CongestionSignal.MIRRORS, 24, 16);
        assertEquals(Optional.empty(), q.apply(queue(PORT, 90, 1), "c", 0));
        assertTrue(q.port(PORT).get().queueCongested());
        assertEquals(0, q.congestions());
    }

    @Test(expected = IllegalArgumentException.class)
    public void aHysteresisAsLargeAsTheThresholdIsRefused() {
        new IntQueueCongestion.Settings(CongestionSignal.INT, 10, 10);
    }

    /** Two flows from one edge, to two other edges, whose default paths share the edge's uplink. */
    private static Object[] collidingFlows(RoutingPlan plan) {
        List<FabricHost> hosts = new ArrayList<>(plan.graph().hosts());
        for (FabricHost s1 : hosts) {
            for (FabricHost s2 : hosts) {
                if (s1.equals(s2) || !s1.edge().equals(s2.edge())) {
                    continue;
                }
                for (FabricHost d1 : hosts) {
                    for (FabricHost d2 : hosts) {
                        if (d1.equals(d2) || d1.edge().equals(s1.edge()) || d2.edge().equals(s1.edge())) {
                            continue;
                        }
                        ConnectPoint u1 = firstHop(plan, s1, d1);
                        if (u1.equals(firstHop(plan, s2, d2))) {
                            return new Object[]{LabControllerTest.key(s1, d1, 40001), LabControllerTest.key(s2, d2, 40002),
                                                u1, s1.mac(), d1.mac()};
                        }
                    }
                }
            }
        }
        throw new AssertionError("no colliding pair");
    }

    private static ConnectPoint firstHop(RoutingPlan plan, FabricHost s, FabricHost d) {
        return plan.path(s.mac(), d.mac(), plan.defaultPathIndex(s.mac(), d.mac()).getAsInt()).get()
                .egressPorts().get(0);
    }

    private static String intQueue(ConnectPoint port, long occupancy, long reportUs) {
        return String.format(Locale.ROOT, "{\"version\":2,\"collector\":\"c1-int\",\"seq\":0,\"sentUs\":%d,\"events\":["
                + "{\"type\":\"INT_PORT\",\"switch\":\"%s\",\"port\":%d,\"signal\":\"QUEUE_OCCUPANCY\",\"value\":%d,"
                + "\"queue\":%d,\"cause\":\"INTERVAL\",\"reportUs\":%d},"
                + "{\"type\":\"INT_PORT\",\"switch\":\"of:00000000000000ff\",\"port\":1,\"signal\":\"HOP_LATENCY\","
                + "\"value\":100,\"cause\":\"NEW_KEY\",\"reportUs\":%d}]}",
                LabController.nowUs(), port.deviceId(), port.port().toLong(), occupancy, port.port().toLong(),
                reportUs, reportUs);
    }

    /** A controller that decides congestion on INT queue occupancy (threshold 24, hysteresis 16). */
    private LabController intController() {
        LabController c = new LabController(emu, TeMode.PLANCK, TeSettings.defaults(), latencies);
        c.useCongestion(new IntQueueCongestion(CongestionSignal.INT, 24, 16));
        return c;
    }

    /** Rates of the colliding pair on their shared uplink: 70 and 50 MB/s, 96 % of 1 Gb/s. */
    private static String twoRates(FlowKey f0, FlowKey f1, ConnectPoint uplink, long us) {
        return LabControllerTest.flowRate(f0, uplink, 70e6, us) + ","
                + LabControllerTest.flowRate(f1, uplink, 50e6, us);
    }

    private IngestResult ingest(LabController c, String body, long receiptUs) throws Exception {
        return c.ingest(codec.decode(body.getBytes(StandardCharsets.UTF_8)), receiptUs);
    }

    /** Under INT: rates and a notice over the threshold move nothing, the INT queue mark does. */
    @Test
    public void aQueueBuildingOnAPortMovesAFlowOffIt() throws Exception {
        LabController c = intController();
        RoutingPlan plan = c.install();
        Object[] p = collidingFlows(plan);
        FlowKey f0 = (FlowKey) p[0];
        FlowKey f1 = (FlowKey) p[1];
        ConnectPoint uplink = (ConnectPoint) p[2];
        MacAddress s0 = (MacAddress) p[3];
        MacAddress d0 = (MacAddress) p[4];
        int before = c.pathIndex(f0, s0, d0);
        long now = LabController.nowUs();
        // 96 % of the uplink, and the collector's notice: not INT, so no move.
        ingest(c, LabControllerTest.batch(1, twoRates(f0, f1, uplink, now) + ","
                + LabControllerTest.congested(uplink, 0.96, now, now)), now);
        c.installPending();
        assertEquals(0, c.moves());
        assertEquals(before, c.pathIndex(f0, s0, d0));
        // The queue below the threshold: nothing.
        IngestResult r = ingest(c, intQueue(uplink, 20, now + 100), now + 200);
        assertEquals(1, r.accepted());
        assertEquals(1, r.unknownDevice());
        c.installPending();
        assertEquals(0, c.moves());
        // The queue reaches the threshold: the larger flow leaves the port.
        ingest(c, intQueue(uplink, 28, now + 300), now + 400);
        c.installPending();
        assertEquals(1, c.moves());
        assertNotEquals(before, c.pathIndex(f0, s0, d0));
        List<String> moved = fabric.path(s0.toString(), d0.toString(), f0.src().toString(), f0.dst().toString(),
                                         40001, 5001);
        assertFalse(moved.contains(uplink.deviceId() + "|" + uplink.port().toLong()));
        LoopLatencyLog.Entry e = latencies.entries().get(latencies.entries().size() - 1);
        assertEquals(LoopLatencyLog.Trigger.INT_QUEUE, e.trigger());
        assertEquals(now + 300, e.sampleUs());
        assertEquals(1, e.moves());
        assertEquals(1, c.intPorts().congestions());
    }

    /**
     * INT marks the port before the collector has any rate of its flows (a queue builds in the
     * first milliseconds of slow start): the decision finds nothing to move. The rates that follow
     * relieve the marked port, and that move is INT's: logged as an INT queue decision from the
     * report that marked the port. After INT clears the port, the same rates move nothing.
     */
    @Test
    public void aMarkBeforeTheRatesMovesOnceTheRatesArrive() throws Exception {
        LabController c = intController();
        RoutingPlan plan = c.install();
        Object[] p = collidingFlows(plan);
        FlowKey f0 = (FlowKey) p[0];
        FlowKey f1 = (FlowKey) p[1];
        ConnectPoint uplink = (ConnectPoint) p[2];
        MacAddress s0 = (MacAddress) p[3];
        MacAddress d0 = (MacAddress) p[4];
        int before = c.pathIndex(f0, s0, d0);
        long now = LabController.nowUs();
        ingest(c, intQueue(uplink, 40, now), now + 100);
        c.installPending();
        assertEquals(0, c.moves());
        assertEquals(1, latencies.entries().size());
        LoopLatencyLog.Entry first = latencies.entries().get(0);
        assertEquals(LoopLatencyLog.Trigger.INT_QUEUE, first.trigger());
        assertEquals(0, first.moves());

        ingest(c, LabControllerTest.batch(2, twoRates(f0, f1, uplink, now + 5000)), now + 6000);
        c.installPending();
        assertEquals(1, c.moves());
        assertNotEquals(before, c.pathIndex(f0, s0, d0));
        assertEquals(2, latencies.entries().size());
        LoopLatencyLog.Entry moved = latencies.entries().get(1);
        assertEquals(LoopLatencyLog.Trigger.INT_QUEUE, moved.trigger());
        assertEquals(uplink, moved.port());
        assertEquals("the loop counts from the INT report that marked the port", now, moved.sampleUs());
        assertEquals(1, moved.moves());

        // Cleared by INT: the port is no longer INT's, and the load view triggers nothing under int.
        LabController c2 = intController();
        c2.install();
        int entries = latencies.entries().size();
        ingest(c2, intQueue(uplink, 40, now + 7000), now + 7100);
        ingest(c2, intQueue(uplink, 0, now + 8000), now + 8100);
        ingest(c2, LabControllerTest.batch(3, twoRates(f0, f1, uplink, now + 9000)), now + 9100);
        c2.installPending();
        assertEquals(0, c2.moves());
        assertEquals("only the marking decision, which moved nothing", entries + 1, latencies.entries().size());
        c2.close();
        c.close();
    }

    /**
     * Under mirrors (the default) an INT queue report starts no decision; under both it does.
     * The flows are mice (5 MB/s each), so the mirror-derived load view triggers nothing itself.
     */
    @Test
    public void intCountsOnlyWhenTheSignalIncludesIt() throws Exception {
        for (CongestionSignal signal : new CongestionSignal[]{CongestionSignal.MIRRORS, CongestionSignal.BOTH}) {
            LoopLatencyLog log = new LoopLatencyLog(100);
            LabController c = new LabController(emu, TeMode.PLANCK, TeSettings.defaults(), log);
            c.useCongestion(new IntQueueCongestion(signal, 24, 16));
            RoutingPlan plan = c.install();
            Object[] p = collidingFlows(plan);
            ConnectPoint uplink = (ConnectPoint) p[2];
            long now = LabController.nowUs();
            ingest(c, LabControllerTest.batch(1, LabControllerTest.flowRate((FlowKey) p[0], uplink, 5e6, now) + ","
                    + LabControllerTest.flowRate((FlowKey) p[1], uplink, 5e6, now)), now);
            c.installPending();
            assertEquals(0, log.entries().size());
            ingest(c, intQueue(uplink, 60, now + 100), now + 200);
            c.installPending();
            long intDecisions = log.entries().stream()
                    .filter(e -> e.trigger() == LoopLatencyLog.Trigger.INT_QUEUE && e.port().equals(uplink)).count();
            assertEquals(signal.toString(), signal == CongestionSignal.BOTH ? 1 : 0, intDecisions);
            assertEquals(signal == CongestionSignal.BOTH ? 1 : 0, c.intPorts().congestions());
            assertTrue(c.intPorts().port(uplink).get().queueCongested());
            c.close();
        }
    }
}
