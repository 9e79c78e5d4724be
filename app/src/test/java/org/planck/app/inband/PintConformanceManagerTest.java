package org.planck.app.inband;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.net.NetTestTools;
import org.planck.api.FlowKey;
import org.planck.api.inband.ConformanceStatus;
import org.planck.api.inband.FlowConformance;
import org.planck.api.inband.PathConformanceEvent;
import org.planck.api.te.PlanckRerouteEvent;
import org.planck.api.te.Reroute;
import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.MalformedBatchException;
import org.planck.app.SyncEventDelivery;
import org.planck.app.reroute.ActiveRerouteLogs;
import org.planck.app.reroute.RerouteLog;
import org.planck.app.telemetry.ManualClock;
import org.planck.app.telemetry.TelemetryFixtures;
import org.planck.app.telemetry.TelemetryStateManager;
import org.planck.app.telemetry.TestFabric;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The ONOS component end to end with the SDK adapters: telemetry-events-v3 JSON through
 * telemetry ingestion, moves through the reroute log, the plan from shadow routing; a moved
 * flow is confirmed only by a trace of its new path, and one traced on its old path turns
 * non-conforming after the confirmation timeout, with an event.
 */
public class PintConformanceManagerTest {
    private static final long T0 = 1_763_718_000_000L;
    private final ObjectMapper mapper = new ObjectMapper();
    private final FatTreeRoutes routes = new FatTreeRoutes();
    private final List<PathConformanceEvent> events = new ArrayList<>();
    private ManualClock clock;
    private RerouteLog reroutes;
    private PintConformanceManager pint;
    private TelemetryStateManager telemetry;
    private final FlowKey flow = FatTreeRoutes.flow(new int[]{0, 0, 0}, new int[]{2, 1, 1}, 10001);

    @Before
    public void setUp() {
        clock = new ManualClock(T0);
        reroutes = ActiveRerouteLogs.activated();
        pint = new PintConformanceManager();
        pint.shadowRoutes = routes;
        pint.rerouteService = reroutes;
        pint.clock = clock;
        NetTestTools.injectEventDispatcher(pint, new SyncEventDelivery());
        pint.activate(null);
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(OsgiPropertyConstants.PINT_SWEEP_INTERVAL_MS, 3_600_000);
        props.put(OsgiPropertyConstants.PINT_CONFIRM_TIMEOUT_MS, 500);
        pint.readConfig(props);
        pint.addListener(events::add);
        telemetry = TelemetryFixtures.manager(new TestFabric(2, 2, 1000), clock);
        telemetry.setPintEventSink(pint);
    }

    @After
    public void tearDown() {
        TelemetryFixtures.stop(telemetry);
        pint.deactivate();
    }

    private IngestResult ingestPath(List<DeviceId> path, String cause, int packets) throws MalformedBatchException {
        ObjectNode root = mapper.createObjectNode();
        root.put("version", 3).put("collector", "c1").put("seq", 0).put("sentUs", clock.millis() * 1000);
        ObjectNode e = root.putArray("events").addObject();
        e.put("type", "PINT_PATH");
        e.putObject("flow").put("src", flow.src().toString()).put("dst", flow.dst().toString()).put("proto", 6)
                .put("sport", flow.srcPort()).put("dport", flow.dstPort());
        ArrayNode p = e.putArray("path");
        path.forEach(d -> p.add(d.toString()));
        e.put("packets", packets).put("cause", cause).put("timeUs", clock.millis() * 1000);
        try {
            return telemetry.ingest(new ByteArrayInputStream(mapper.writeValueAsBytes(root)));
        } catch (java.io.IOException ex) {
            throw new AssertionError(ex);
        }
    }

    private void move(int from, int to) {
        routes.place(flow, to);
        reroutes.report(PlanckRerouteEvent.Type.FLOW_REROUTED, new Reroute(flow, null, from, to,
                MacAddress.valueOf("02:00:00:00:00:01"), 100, clock.millis()));
    }

    @Test
    public void versionThreeBatchesReachTheConformanceView() throws Exception {
        IngestResult r = ingestPath(routes.pathOf(flow, routes.defaultIndex(flow)), "NEW_KEY", 17);
        assertEquals(1, r.accepted());
        FlowConformance v = pint.flow(flow).orElseThrow();
        assertEquals(ConformanceStatus.CONFORMING, v.status());
        assertEquals(17, v.tracePackets());
        assertEquals(1, telemetry.counters().pintEvents());
        assertEquals(1, pint.counters().paths());
    }

    @Test
    public void movedFlowIsConfirmedOnItsNewPath() throws Exception {
        int def = routes.defaultIndex(flow);
        int other = routes.otherIndex(flow);
        ingestPath(routes.pathOf(flow, def), "NEW_KEY", 15);
        move(def, other);
        clock.advanceMillis(30);
        assertEquals(ConformanceStatus.MOVE_PENDING, pint.flow(flow).orElseThrow().status());
        ingestPath(routes.pathOf(flow, other), "PATH_CHANGE", 11);
        FlowConformance v = pint.flow(flow).orElseThrow();
        assertEquals(ConformanceStatus.MOVED_CONFIRMED, v.status());
        assertEquals(30, v.confirmationMillis());
        assertEquals(1, events.size());
        assertEquals(PathConformanceEvent.Type.MOVE_CONFIRMED, events.get(0).type());
    }

    @Test
    public void movedFlowTracedOnItsOldPathIsNotConfirmed() throws Exception {
        int def = routes.defaultIndex(flow);
        int other = routes.otherIndex(flow);
        ingestPath(routes.pathOf(flow, def), "NEW_KEY", 15);
        move(def, other);
        clock.advanceMillis(100);
        // The rule did not take: the collector traces the flow on its old path again.
        ingestPath(routes.pathOf(flow, def), "PATH_CHANGE", 13);
        pint.sweep();
        assertEquals(ConformanceStatus.MOVE_PENDING, pint.flow(flow).orElseThrow().status());
        assertTrue(events.isEmpty());
        clock.advanceMillis(400);
        pint.sweep();
        FlowConformance v = pint.flow(flow).orElseThrow();
        assertEquals(ConformanceStatus.NON_CONFORMING, v.status());
        assertEquals(routes.pathOf(flow, def), v.tracedPath());
        assertEquals(other, v.plannedIndex());
        assertEquals(1, events.size());
        assertEquals(PathConformanceEvent.Type.NON_CONFORMING, events.get(0).type());
        assertEquals(1, pint.counters().nonConforming());
        assertEquals(0, pint.counters().confirmed());
    }

    @Test
    public void malformedVersionThreeBatchChangesNothing() {
        ObjectNode root = mapper.createObjectNode();
        root.put("version", 3).put("collector", "c1").put("seq", 0).put("sentUs", 0);
        root.putArray("events").addObject().put("type", "PINT_PATH").put("packets", 3);
        try {
            telemetry.ingest(new ByteArrayInputStream(root.toString().getBytes()));
            fail("accepted a PINT_PATH without flow and path");
        } catch (MalformedBatchException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("events[0].flow: missing"));
        }
        assertFalse(pint.flow(flow).isPresent());
        assertEquals(0, pint.counters().paths());
        assertEquals(1, telemetry.counters().rejectedBatches());
    }

    @Test
    public void withoutTheComponentPintEventsAreCountedUnhandled() throws Exception {
        telemetry.setPintEventSink(null);
        IngestResult r = ingestPath(routes.pathOf(flow, 0), "NEW_KEY", 4);
        assertEquals(0, r.accepted());
        assertEquals(1, telemetry.counters().pintUnhandled());
        assertFalse(pint.flow(flow).isPresent());
    }
}
