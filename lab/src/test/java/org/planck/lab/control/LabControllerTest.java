package org.planck.lab.control;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.te.TeMode;
import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.MalformedBatchException;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.api.telemetry.TelemetryBatchCodec;
import org.planck.lab.FakeFabric;
import org.planck.lab.emu.CounterSnapshot;
import org.planck.lab.emu.EmulatorClient;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

/**
 * The lab controller against a fake fabric: the installed plan forwards every host pair, a
 * congestion notice moves the largest flow off the port with one per-flow rule, a rejected batch
 * changes nothing, and Poll mode acts on counters.
 */
public class LabControllerTest {
    private static final long GBPS = 1_000_000_000L;
    private FakeFabric fabric;
    private EmulatorClient emu;
    private final LoopLatencyLog latencies = new LoopLatencyLog(100);
    private final TelemetryBatchCodec codec = new TelemetryBatchCodec();

    @Before
    public void start() throws Exception {
        fabric = FakeFabric.fatTree(GBPS);
        emu = new EmulatorClient(fabric.control());
    }

    @After
    public void stop() {
        fabric.close();
    }

    @Test
    public void installedPlanDeliversEveryHostPairOnItsDefaultPath() {
        LabController c = new LabController(emu, TeMode.PLANCK, TeSettings.defaults(), latencies);
        RoutingPlan plan = c.install();
        assertEquals(1, fabric.ruleBatches().size());
        assertEquals(plan.ruleCount(), fabric.ruleBatches().get(0).get("ops").size());
        int pairs = 0;
        for (FabricHost s : plan.graph().hosts()) {
            for (FabricHost d : plan.graph().hosts()) {
                if (s.equals(d)) {
                    continue;
                }
                List<String> path = fabric.path(mac(s), mac(d), ip(s), ip(d), 40000, 5001);
                assertFalse(s + "->" + d + " is dropped", path.isEmpty());
                assertEquals(d.edge() + "|" + d.port().toLong(), path.get(path.size() - 1));
                if (!s.edge().equals(d.edge())) {
                    ShadowPath expected = plan.path(s.mac(), d.mac(),
                                                    plan.defaultPathIndex(s.mac(), d.mac()).getAsInt()).get();
                    List<String> hops = new ArrayList<>();
                    expected.egressPorts().forEach(p -> hops.add(p.deviceId() + "|" + p.port().toLong()));
                    assertEquals(hops, path);
                }
                pairs++;
            }
        }
        assertEquals(16 * 15, pairs);
    }

    /** Two flows from one edge whose default paths share the edge's uplink. */
    private FlowKey[] collidingFlows(RoutingPlan plan, MacAddress[] macs) {
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
                        ConnectPoint u2 = firstHop(plan, s2, d2);
                        if (u1.equals(u2)) {
                            macs[0] = s1.mac();
                            macs[1] = d1.mac();
                            macs[2] = s2.mac();
                            macs[3] = d2.mac();
                            return new FlowKey[]{key(s1, d1, 40001), key(s2, d2, 40002)};
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

    /**
     * A decision's rule batch waits for the deciding thread to hand it over
     * ({@code afterIngest}, before the collector is answered), and then reaches the fabric in
     * that thread: no installer thread to wake.
     */
    @Test
    public void aDecidedRuleBatchGoesToTheFabricInTheThreadThatInstallsIt() throws Exception {
        LabController c = new LabController(emu, TeMode.PLANCK, TeSettings.defaults(), latencies);
        RoutingPlan plan = c.install();
        MacAddress[] m = new MacAddress[4];
        FlowKey[] f = collidingFlows(plan, m);
        ConnectPoint uplink = firstHop(plan, plan.graph().host(m[0]).get(), plan.graph().host(m[1]).get());
        long now = LabController.nowUs();
        String body = batch(1, flowRate(f[0], uplink, 70e6, now) + "," + flowRate(f[1], uplink, 50e6, now) + ","
                + congested(uplink, 0.96, now - 300, now));
        c.ingest(codec.decode(body.getBytes(StandardCharsets.UTF_8)), now + 500);
        assertEquals("decided, not yet handed over", 1, fabric.ruleBatches().size());
        assertEquals(-1, latencies.entries().stream().mapToLong(LoopLatencyLog.Entry::answeredUs).max().orElse(-1));
        c.afterIngest();
        assertEquals(2, fabric.ruleBatches().size());
        assertTrue(latencies.entries().stream().anyMatch(e -> e.moves() == 1 && e.answeredUs() >= e.decisionUs()));
        c.afterIngest();
        assertEquals("nothing installed twice", 2, fabric.ruleBatches().size());
        c.close();
    }

    @Test
    public void congestionNoticeMovesTheLargestFlowWithOnePerFlowRule() throws Exception {
        LabController c = new LabController(emu, TeMode.PLANCK, TeSettings.defaults(), latencies);
        RoutingPlan plan = c.install();
        MacAddress[] m = new MacAddress[4];
        FlowKey[] f = collidingFlows(plan, m);
        ConnectPoint uplink = firstHop(plan, plan.graph().host(m[0]).get(), plan.graph().host(m[1]).get());
        long now = LabController.nowUs();
        // 70 MB/s + 50 MB/s on a 125 MB/s port: 96%.
        String body = batch(1, flowRate(f[0], uplink, 70e6, now) + "," + flowRate(f[1], uplink, 50e6, now) + ","
                + congested(uplink, 0.96, now - 300, now) + ","
                + congested(ConnectPoint.deviceConnectPoint("of:00000000000000ff/1"), 0.9, now, now));
        IngestResult r = c.ingest(codec.decode(body.getBytes(StandardCharsets.UTF_8)), now + 500);
        assertEquals(3, r.accepted());
        assertEquals(1, r.unknownDevice());
        // The rules go to the fabric when the deciding thread hands them over; the view has the
        // move already.
        assertNotEquals(plan.defaultPathIndex(m[0], m[1]).getAsInt(), c.pathIndex(f[0], m[0], m[1]));
        c.installPending();

        assertEquals(2, fabric.ruleBatches().size());
        JsonNode ops = fabric.ruleBatches().get(1).get("ops");
        assertEquals(1, ops.size());
        JsonNode op = ops.get(0);
        assertEquals(32000, op.get("priority").asInt());
        assertEquals(f[0].src().toString(), op.get("match").get("ipSrc").asText());
        assertEquals(40001, op.get("match").get("sport").asInt());
        assertEquals(1, c.moves());

        List<String> moved = fabric.path(m[0].toString(), m[1].toString(), f[0].src().toString(),
                                         f[0].dst().toString(), 40001, 5001);
        List<String> stayed = fabric.path(m[2].toString(), m[3].toString(), f[1].src().toString(),
                                          f[1].dst().toString(), 40002, 5001);
        String up = uplink.deviceId() + "|" + uplink.port().toLong();
        assertFalse("the larger flow left the congested port", moved.contains(up));
        assertTrue("the smaller flow stayed", stayed.contains(up));
        assertEquals(plan.graph().host(m[1]).get().edge() + "|" + plan.graph().host(m[1]).get().port().toLong(),
                     moved.get(moved.size() - 1));

        assertEquals(1, latencies.entries().size());
        LoopLatencyLog.Entry e = latencies.entries().get(0);
        assertEquals(LoopLatencyLog.Trigger.NOTICE, e.trigger());
        assertEquals(now - 300, e.sampleUs());
        assertEquals(now + 500, e.receiptUs());
        assertEquals(1, e.moves());
        assertTrue(e.answeredUs() >= e.decisionUs());
        assertTrue(e.appliedUs() > 0);
        assertNotEquals(plan.defaultPathIndex(m[0], m[1]).getAsInt(), c.pathIndex(f[0], m[0], m[1]));
    }

    private static String pintPath(FlowKey f, List<?> devices, String cause) {
        StringBuilder path = new StringBuilder();
        for (Object d : devices) {
            path.append(path.length() == 0 ? "" : ",").append('"').append(d).append('"');
        }
        return String.format("{\"version\":3,\"collector\":\"pint\",\"seq\":0,\"sentUs\":1,\"events\":[{"
                + "\"type\":\"PINT_PATH\",\"flow\":{\"src\":\"%s\",\"dst\":\"%s\",\"proto\":6,\"sport\":%d,"
                + "\"dport\":%d},\"path\":[%s],\"packets\":9,\"cause\":\"%s\",\"timeUs\":1}]}",
                f.src(), f.dst(), f.srcPort(), f.dstPort(), path, cause);
    }

    private static List<Object> devices(RoutingPlan plan, MacAddress s, MacAddress d, int index) {
        List<Object> out = new ArrayList<>();
        plan.path(s, d, index).get().hops().forEach(h -> out.add(h.device()));
        return out;
    }

    @Test
    public void pintTracesConfirmAMoveOnlyOnTheNewPath() throws Exception {
        LabController c = new LabController(emu, TeMode.PLANCK, TeSettings.defaults(), latencies);
        RoutingPlan plan = c.install();
        MacAddress[] m = new MacAddress[4];
        FlowKey[] f = collidingFlows(plan, m);
        ConnectPoint uplink = firstHop(plan, plan.graph().host(m[0]).get(), plan.graph().host(m[1]).get());
        int old0 = plan.defaultPathIndex(m[0], m[1]).getAsInt();
        int old1 = plan.defaultPathIndex(m[2], m[3]).getAsInt();
        long now = LabController.nowUs();
        c.ingest(codec.decode(pintPath(f[0], devices(plan, m[0], m[1], old0), "NEW_KEY")
                .getBytes(StandardCharsets.UTF_8)), now);
        c.ingest(codec.decode(pintPath(f[1], devices(plan, m[2], m[3], old1), "NEW_KEY")
                .getBytes(StandardCharsets.UTF_8)), now);
        c.ingest(codec.decode(batch(1, flowRate(f[0], uplink, 70e6, now) + "," + flowRate(f[1], uplink, 50e6, now)
                + "," + congested(uplink, 0.96, now, now)).getBytes(StandardCharsets.UTF_8)), now);
        c.installPending();
        int moved = c.pathIndex(f[0], m[0], m[1]);
        assertNotEquals(old0, moved);
        java.util.Map<FlowKey, org.planck.api.inband.FlowConformance> view = new java.util.HashMap<>();
        c.conformance().forEach(v -> view.put(v.flow(), v));
        // Traced on its old path before the move: not confirmed.
        assertEquals(org.planck.api.inband.ConformanceStatus.MOVE_PENDING, view.get(f[0]).status());
        assertEquals(org.planck.api.inband.ConformanceStatus.CONFORMING, view.get(f[1]).status());
        // The old path traced again after the move does not confirm it either.
        c.ingest(codec.decode(pintPath(f[0], devices(plan, m[0], m[1], old0), "PATH_CHANGE")
                .getBytes(StandardCharsets.UTF_8)), now);
        assertEquals(org.planck.api.inband.ConformanceStatus.MOVE_PENDING, c.conformance().stream()
                .filter(v -> v.flow().equals(f[0])).findFirst().get().status());
        c.ingest(codec.decode(pintPath(f[0], devices(plan, m[0], m[1], moved), "PATH_CHANGE")
                .getBytes(StandardCharsets.UTF_8)), now);
        org.planck.api.inband.FlowConformance v = c.conformance().stream().filter(x -> x.flow().equals(f[0]))
                .findFirst().get();
        assertEquals(org.planck.api.inband.ConformanceStatus.MOVED_CONFIRMED, v.status());
        assertTrue(v.confirmationMillis() >= 0);
        assertEquals(1, c.pintCounters().confirmed());
    }

    /** Two colliding flows at 90 + 70 MB/s on a 125 MB/s uplink, no notice; returns the moves. */
    private long movesForRatesAlone(boolean lowConfidence) throws Exception {
        LabController c = new LabController(emu, TeMode.PLANCK, TeSettings.defaults(), latencies);
        RoutingPlan plan = c.install();
        MacAddress[] m = new MacAddress[4];
        FlowKey[] f = collidingFlows(plan, m);
        ConnectPoint uplink = firstHop(plan, plan.graph().host(m[0]).get(), plan.graph().host(m[1]).get());
        long now = LabController.nowUs();
        String rates = flowRate(f[0], uplink, 90e6, now) + "," + flowRate(f[1], uplink, 70e6, now);
        if (lowConfidence) {
            rates = rates.replace("\"estimator\":\"TCP_SEQ\"",
                                  "\"estimator\":\"SAMPLED_BYTES\",\"lowConfidence\":true");
        }
        c.ingest(codec.decode(batch(1, rates).getBytes(StandardCharsets.UTF_8)), now + 500);
        c.installPending();
        return c.moves();
    }

    @Test
    public void ratesOverTheUplinkMoveAFlow() throws Exception {
        assertEquals(1, movesForRatesAlone(false));
    }

    @Test
    public void lowConfidenceRatesAloneMoveNothing() throws Exception {
        // As in the app: a rate the collector could only guess from sampled bytes is not acted on.
        assertEquals(0, movesForRatesAlone(true));
    }

    @Test
    public void movesTheFabricRefusesAreUndoneInTheView() throws Exception {
        LabController c = new LabController(emu, TeMode.PLANCK, TeSettings.defaults(), latencies);
        RoutingPlan plan = c.install();
        MacAddress[] m = new MacAddress[4];
        FlowKey[] f = collidingFlows(plan, m);
        ConnectPoint uplink = firstHop(plan, plan.graph().host(m[0]).get(), plan.graph().host(m[1]).get());
        fabric.refuseRules();
        long now = LabController.nowUs();
        c.ingest(codec.decode(batch(1, flowRate(f[0], uplink, 70e6, now) + "," + flowRate(f[1], uplink, 50e6, now)
                + "," + congested(uplink, 0.96, now, now)).getBytes(StandardCharsets.UTF_8)), now);
        c.installPending();
        assertEquals("the move was sent", 2, fabric.ruleBatches().size());
        assertEquals(1, c.applyFailures());
        assertEquals(0, c.moves());
        // Both flows are back on their default path in the view, as in the fabric.
        assertEquals(plan.defaultPathIndex(m[0], m[1]).getAsInt(), c.pathIndex(f[0], m[0], m[1]));
        assertEquals(plan.defaultPathIndex(m[2], m[3]).getAsInt(), c.pathIndex(f[1], m[2], m[3]));
        assertEquals(2.0, c.utilisation(uplink), 1e-9);
        assertEquals(0, latencies.entries().size());
        c.close();
    }

    @Test
    public void anEndedFlowDoesNotComeBackFromLateEstimates() throws Exception {
        LabController c = new LabController(emu, TeMode.PLANCK, TeSettings.defaults(), latencies);
        RoutingPlan plan = c.install();
        MacAddress[] m = new MacAddress[4];
        FlowKey[] f = collidingFlows(plan, m);
        ConnectPoint uplink = firstHop(plan, plan.graph().host(m[0]).get(), plan.graph().host(m[1]).get());
        long now = LabController.nowUs();
        c.ingest(codec.decode(batch(1, flowRate(f[0], uplink, 70e6, now)).getBytes(StandardCharsets.UTF_8)), now);
        assertEquals(1.0, c.utilisation(uplink), 1e-9);
        c.flowFinished(f[0]);
        assertEquals(0.0, c.utilisation(uplink), 0);
        // An estimate the collector sent before it saw the end arrives now: ignored, counted.
        c.ingest(codec.decode(batch(2, flowRate(f[0], uplink, 70e6, now)).getBytes(StandardCharsets.UTF_8)),
                 now + 10);
        assertEquals(0.0, c.utilisation(uplink), 0);
        assertEquals(1, c.lateEstimates());
        c.close();
    }

    @Test
    public void rejectedBatchOverHttpChangesNothing() throws Exception {
        LabController c = new LabController(emu, TeMode.PLANCK, TeSettings.defaults(), latencies);
        RoutingPlan plan = c.install();
        MacAddress[] m = new MacAddress[4];
        FlowKey[] f = collidingFlows(plan, m);
        ConnectPoint uplink = firstHop(plan, plan.graph().host(m[0]).get(), plan.graph().host(m[1]).get());
        long now = LabController.nowUs();
        // A valid congestion notice and flows, then one malformed event: nothing may happen.
        String body = batch(1, flowRate(f[0], uplink, 70e6, now) + "," + flowRate(f[1], uplink, 50e6, now) + ","
                + congested(uplink, 0.96, now, now) + ",{\"type\":\"FLOW_RATE\",\"switch\":\"of:1\"}");
        try (TelemetryEndpoint endpoint = TelemetryEndpoint.start(new InetSocketAddress("127.0.0.1", 0), "u", "p")) {
            endpoint.attach(c);
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + endpoint.port() + TelemetryEndpoint.PATH))
                    .header("Content-Type", "application/json")
                    .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("u:p".getBytes()))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(400, r.statusCode());
            assertTrue(r.body().contains("\"code\":400"));
        }
        assertEquals(1, fabric.ruleBatches().size());
        assertEquals(0.0, c.utilisation(uplink), 0);
        assertEquals(0, latencies.entries().size());
        assertEquals(0, c.moves());
    }

    @Test(expected = MalformedBatchException.class)
    public void codecIsTheAppsCodec() throws Exception {
        codec.decode(batch(1, "{\"type\":\"PORT_CONGESTION\"}").getBytes(StandardCharsets.UTF_8));
    }

    @Test
    public void staticModeNeverMoves() throws Exception {
        LabController c = new LabController(emu, TeMode.STATIC, TeSettings.defaults(), latencies);
        RoutingPlan plan = c.install();
        MacAddress[] m = new MacAddress[4];
        FlowKey[] f = collidingFlows(plan, m);
        ConnectPoint uplink = firstHop(plan, plan.graph().host(m[0]).get(), plan.graph().host(m[1]).get());
        long now = LabController.nowUs();
        c.ingest(codec.decode(batch(1, flowRate(f[0], uplink, 70e6, now) + "," + flowRate(f[1], uplink, 50e6, now)
                + "," + congested(uplink, 0.96, now, now)).getBytes(StandardCharsets.UTF_8)), now);
        assertEquals(1, fabric.ruleBatches().size());
        assertEquals(0, c.moves());
        // The view still tracks them: two elephants, each alone on its hosts, each demanding a
        // whole 1 Gb/s link (125 MB/s) although they measure 70 and 50 MB/s.
        assertEquals(2.0, c.utilisation(uplink), 1e-9);
    }

    @Test
    public void pollModeReadsCountersAndMovesOffAHotPort() throws Exception {
        LabController c = new LabController(emu, TeMode.POLL, TeSettings.defaults(), latencies);
        RoutingPlan plan = c.install();
        MacAddress[] m = new MacAddress[4];
        FlowKey[] f = collidingFlows(plan, m);
        ConnectPoint uplink = firstHop(plan, plan.graph().host(m[0]).get(), plan.graph().host(m[1]).get());
        c.expectFlow(f[0], m[0], m[1]);
        c.expectFlow(f[1], m[2], m[3]);
        emu.startFlows(List.of(new org.planck.lab.emu.FlowSpec(1, m[0], m[1], 50L << 20, 0, 40001, 5001),
                               new org.planck.lab.emu.FlowSpec(2, m[2], m[3], 50L << 20, 0, 40002, 5001)));
        Thread.sleep(10);
        // The first snapshot is only the baseline.
        assertEquals(0, c.onCounters(emu.counters()));
        assertEquals(0, c.moves());
        Thread.sleep(30);
        CounterSnapshot s = emu.counters();
        assertTrue(c.onCounters(s) >= 1);
        c.installPending();
        assertEquals(1, c.moves());
        assertEquals(LoopLatencyLog.Trigger.POLL, latencies.entries().get(latencies.entries().size() - 1).trigger());
        assertEquals(s.timeUs(), latencies.entries().get(latencies.entries().size() - 1).sampleUs());
        Thread.sleep(30);
        c.onCounters(emu.counters());
        c.installPending();
        // However often the (stale) estimates move them, the two flows no longer share a port.
        List<String> p0 = fabric.path(m[0].toString(), m[1].toString(), f[0].src().toString(),
                                      f[0].dst().toString(), 40001, 5001);
        List<String> p1 = fabric.path(m[2].toString(), m[3].toString(), f[1].src().toString(),
                                      f[1].dst().toString(), 40002, 5001);
        assertFalse(p0.isEmpty() || p1.isEmpty());
        for (String port : p0) {
            assertFalse("shared " + port, p1.contains(port));
        }
    }

    static String mac(FabricHost h) {
        return h.mac().toString().toLowerCase(Locale.ROOT);
    }

    static String ip(FabricHost h) {
        return h.ips().iterator().next().toString();
    }

    static FlowKey key(FabricHost s, FabricHost d, int sport) {
        return FlowKey.of(s.ips().iterator().next(), d.ips().iterator().next(), 6, sport, 5001);
    }

    static String batch(long seq, String events) {
        return "{\"version\":1,\"collector\":\"c1\",\"seq\":" + seq + ",\"sentUs\":" + LabController.nowUs()
                + ",\"events\":[" + events + "]}";
    }

    static String flowRate(FlowKey f, ConnectPoint port, double bytesPerSec, long us) {
        return String.format(Locale.ROOT, "{\"type\":\"FLOW_RATE\",\"flow\":{\"src\":\"%s\",\"dst\":\"%s\",\"proto\":6,"
                + "\"sport\":%d,\"dport\":%d},\"switch\":\"%s\",\"port\":%d,\"dstMac\":\"02:70:00:00:00:01\","
                + "\"bytesPerSec\":%.1f,\"samples\":10,\"firstSampleUs\":%d,\"lastSampleUs\":%d,"
                + "\"estimator\":\"TCP_SEQ\"}", f.src(), f.dst(), f.srcPort(), f.dstPort(), port.deviceId(),
                port.port().toLong(), bytesPerSec, us - 1000, us);
    }

    static String congested(ConnectPoint port, double util, long sampleUs, long timeUs) {
        return String.format(Locale.ROOT, "{\"type\":\"PORT_CONGESTION\",\"switch\":\"%s\",\"port\":%d,"
                + "\"state\":\"CONGESTED\",\"utilization\":%.3f,\"loadBps\":%.1f,\"capacityBps\":1000000000.0,"
                + "\"sampleUs\":%d,\"timeUs\":%d}", port.deviceId(), port.port().toLong(), util, util * 1e9,
                sampleUs, timeUs);
    }

    @SuppressWarnings("unused")
    private static Map<String, Object> none() {
        return new HashMap<>();
    }
}
