package org.planck.web.gui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.TestServiceDirectory;
import org.onlab.packet.IpAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.PortNumber;
import org.onosproject.net.link.LinkService;
import org.planck.api.FlowKey;
import org.planck.api.ShadowRouteService;
import org.planck.api.te.PlanckRerouteEvent;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteService;
import org.planck.api.telemetry.CongestionSource;
import org.planck.api.telemetry.PlanckCongestionEvent;
import org.planck.api.telemetry.PortLoadService;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.planck.api.TestPlanckServices.A;
import static org.planck.api.TestPlanckServices.B;
import static org.planck.api.TestPlanckServices.S1;
import static org.planck.api.TestPlanckServices.S2;
import static org.planck.api.TestPlanckServices.S3;
import static org.planck.api.fabric.ShadowMacSpace.mac;

/**
 * Drives the overlay's websocket handler as the topology view does (start, mode, select,
 * stop) against in-memory services and checks the JSON it sends in each mode.
 */
public class PlanckTopovMessageHandlerTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** GUI id of the S1-S2 line: compact string of the canonical direction. */
    private static final String S1_S2 = "of:0000000000000001/2-of:0000000000000002/2";
    private static final String S2_S3 = "of:0000000000000002/3-of:0000000000000003/3";
    private static final ConnectPoint S1_P2 = new ConnectPoint(S1, PortNumber.portNumber(2));
    private static final ConnectPoint S2_P2 = new ConnectPoint(S2, PortNumber.portNumber(2));
    private static final ConnectPoint S3_P3 = new ConnectPoint(S3, PortNumber.portNumber(3));
    private static final FlowKey FLOW = FlowKey.of(IpAddress.valueOf("10.0.0.1"),
            IpAddress.valueOf("10.0.0.2"), 6, 40000, 5201);

    private final FakeFabricServices.Links links = new FakeFabricServices.Links();
    private final FakeFabricServices.PortLoads loads = new FakeFabricServices.PortLoads();
    private final FakeFabricServices.Routes routes = new FakeFabricServices.Routes();
    private final FakeFabricServices.Reroutes reroutes = new FakeFabricServices.Reroutes();
    private final FakeUiConnection ui = new FakeUiConnection();
    private PlanckTopovMessageHandler handler;

    @Before
    public void setUp() {
        TestServiceDirectory dir = new TestServiceDirectory()
                .add(LinkService.class, links)
                .add(PortLoadService.class, loads)
                .add(ShadowRouteService.class, routes)
                .add(RerouteService.class, reroutes);
        handler = new PlanckTopovMessageHandler(false);
        handler.init(ui, dir);
    }

    @After
    public void tearDown() {
        handler.destroy();
    }

    private void send(String event, String payloadJson) throws Exception {
        ObjectNode m = MAPPER.createObjectNode();
        m.put("event", event);
        m.set("payload", MAPPER.readTree(payloadJson));
        handler.process(m);
    }

    private void twoLinks() {
        links.links.addAll(FakeFabricServices.both(S1, 2, S2, 2));
        links.links.addAll(FakeFabricServices.both(S2, 3, S3, 3));
    }

    /**
     * Keeps a message the handler sent as a sample for the browser test of the overlay's
     * scripts (src/test/system/gui-browser.sh), so the JS is checked on real handler output.
     */
    private static void saveSample(String name, ObjectNode payload) throws Exception {
        Path dir = Paths.get("target", "overlay-samples");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(name + ".json"), MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(payload));
    }

    private static JsonNode linkHighlight(ObjectNode highlights, String id) {
        for (JsonNode l : highlights.path("links")) {
            if (id.equals(l.path("id").asText())) {
                return l;
            }
        }
        return null;
    }

    private static List<String> ids(JsonNode array) {
        List<String> ids = new ArrayList<>();
        array.forEach(n -> ids.add(n.path("id").asText()));
        return ids;
    }

    @Test
    public void emptyTopologySendsEmptyHighlightsAndData() throws Exception {
        send(PlanckTopovMessageHandler.START, "{\"mode\":\"load\"}");

        ObjectNode h = ui.last(PlanckTopovMessageHandler.SHOW_HIGHLIGHTS);
        assertEquals(0, h.path("links").size());
        assertEquals(0, h.path("devices").size());
        ObjectNode d = ui.last(PlanckTopovMessageHandler.DATA);
        assertEquals("load", d.path("mode").asText());
        assertEquals(0, d.path("links").size());
        assertEquals(0, d.path("congestedPorts").size());
        assertEquals(0, d.path("notices").size());
        assertTrue("INT/PINT hop slot is present", d.path("hops").isArray());
        assertFalse(d.has("selection"));
    }

    @Test
    public void emptyTopologyInEveryModeSendsNothingToDrawAndNoError() throws Exception {
        send(PlanckTopovMessageHandler.START, "{\"mode\":\"load\"}");
        for (String mode : List.of("congestion", "paths", "load")) {
            send(PlanckTopovMessageHandler.MODE, "{\"mode\":\"" + mode + "\"}");
            ObjectNode d = ui.last(PlanckTopovMessageHandler.DATA);
            assertEquals(mode, d.path("mode").asText());
            assertFalse(mode + ": " + d, d.has("error"));
            assertEquals(0, d.path("links").size());
            assertEquals(0, d.path("congestedPorts").size());
            ObjectNode h = ui.last(PlanckTopovMessageHandler.SHOW_HIGHLIGHTS);
            assertEquals(mode, 0, h.path("links").size());
            assertEquals(mode, 0, h.path("devices").size());
        }
        send(PlanckTopovMessageHandler.MODE, "{\"mode\":\"paths\"}");
        send(PlanckTopovMessageHandler.SELECT, "{\"id\":\"00:00:00:00:00:0A/None\"}");
        ObjectNode d = ui.last(PlanckTopovMessageHandler.DATA);
        assertFalse(d.toString(), d.has("error"));
        assertEquals(d.toString(), "00:00:00:00:00:0A", d.path("selection").path("host").asText());
        assertEquals(0, d.path("selection").path("paths").size());
        assertEquals(-1, d.path("selection").path("currentPath").asInt());
        assertEquals(0, d.path("selection").path("reroutes").size());
        assertEquals(0, ui.last(PlanckTopovMessageHandler.SHOW_HIGHLIGHTS).path("links").size());
    }

    @Test
    public void nothingIsSentBeforeStartOrAfterStop() throws Exception {
        twoLinks();
        handler.refresh();
        assertTrue(ui.sent.isEmpty());

        send(PlanckTopovMessageHandler.START, "{}");
        send(PlanckTopovMessageHandler.STOP, "{}");
        int after = ui.sent.size();
        assertEquals("stop clears the highlights", 0, ui.last(PlanckTopovMessageHandler.SHOW_HIGHLIGHTS)
                .path("links").size());
        handler.refresh();
        assertEquals(after, ui.sent.size());
    }

    @Test
    public void loadModeColoursAndLabelsLinksByTheBusierDirection() throws Exception {
        twoLinks();
        loads.bps.put(S2_P2, 650_000_000L);   // reverse direction of S1-S2 carries the load
        loads.bps.put(S1_P2, 100_000_000L);

        send(PlanckTopovMessageHandler.START, "{\"mode\":\"load\"}");

        ObjectNode h = ui.last(PlanckTopovMessageHandler.SHOW_HIGHLIGHTS);
        assertEquals("only the loaded link is drawn", List.of(S1_S2), ids(h.path("links")));
        JsonNode l = linkHighlight(h, S1_S2);
        assertTrue(l.path("css").asText(), l.path("css").asText().contains("port-traffic-yellow"));
        assertTrue(l.path("label").asText(), l.path("label").asText().startsWith("65% "));
        ObjectNode d = ui.last(PlanckTopovMessageHandler.DATA);
        assertEquals(2, d.path("links").size());
        JsonNode dl = d.path("links").get(0);
        assertEquals(S1_S2, dl.path("id").asText());
        assertEquals(650_000_000L, dl.path("loadBps").asLong());
        assertEquals(S2_P2.toString(), dl.path("port").asText());
        assertEquals(0.65, dl.path("utilization").asDouble(), 1e-9);
        assertEquals(0L, d.path("links").get(1).path("loadBps").asLong());
        saveSample("load", d);
    }

    @Test
    public void congestionModeShowsOnlyCongestedLinksBadgesAndNotices() throws Exception {
        twoLinks();
        loads.bps.put(S1_P2, 300_000_000L);
        loads.bps.put(S3_P3, 950_000_000L);
        loads.congested.add(S3_P3);

        send(PlanckTopovMessageHandler.START, "{\"mode\":\"congestion\"}");
        ObjectNode h = ui.last(PlanckTopovMessageHandler.SHOW_HIGHLIGHTS);
        assertEquals(List.of(S2_S3), ids(h.path("links")));
        assertTrue(linkHighlight(h, S2_S3).path("css").asText().contains("port-traffic-red"));
        assertEquals(1, h.path("devices").size());
        JsonNode badge = h.path("devices").get(0);
        assertEquals(S3.toString(), badge.path("id").asText());
        assertEquals("1", badge.path("badge").path("txt").asText());

        int before = ui.payloads(PlanckTopovMessageHandler.DATA).size();
        loads.post(new PlanckCongestionEvent(PlanckCongestionEvent.Type.CONGESTED, S3_P3,
                CongestionSource.COLLECTOR, 0.95, 123L));
        List<ObjectNode> data = ui.payloads(PlanckTopovMessageHandler.DATA);
        assertEquals("a notice is pushed at once", before + 1, data.size());
        JsonNode notice = data.get(data.size() - 1).path("notices").get(0);
        assertEquals(S3_P3.toString(), notice.path("port").asText());
        assertEquals("CONGESTED", notice.path("type").asText());
        assertEquals("COLLECTOR", notice.path("source").asText());
        assertEquals(List.of(S3_P3.toString()),
                List.of(data.get(data.size() - 1).path("congestedPorts").get(0).asText()));
        saveSample("congestion", data.get(data.size() - 1));
    }

    @Test
    public void noticesAreBoundedAndDropsCounted() throws Exception {
        send(PlanckTopovMessageHandler.START, "{\"mode\":\"congestion\"}");
        int n = PlanckTopovMessageHandler.NOTICES_KEPT + 3;
        for (int i = 0; i < n; i++) {
            loads.post(new PlanckCongestionEvent(PlanckCongestionEvent.Type.CLEARED, S1_P2,
                    CongestionSource.LOAD_VIEW, 0.1, i));
        }
        ObjectNode d = ui.last(PlanckTopovMessageHandler.DATA);
        assertEquals(PlanckTopovMessageHandler.NOTICES_KEPT, d.path("notices").size());
        assertEquals(3, d.path("noticesDropped").asLong());
        assertEquals("newest first", n - 1, d.path("notices").get(0).path("receivedNanos").asLong());
    }

    @Test
    public void pathsModeShowsTheSelectedHostsPathsAndReroutes() throws Exception {
        twoLinks();
        loads.bps.put(S1_P2, 920_000_000L);
        routes.placeFlow(FLOW, A, B, 0);
        reroutes.report(PlanckRerouteEvent.Type.FLOW_REROUTED,
                new Reroute(FLOW, S1_P2, 1, 0, mac(0), 87, 1_700_000_000_000L));
        reroutes.report(PlanckRerouteEvent.Type.FLOW_REROUTED,
                new Reroute(FLOW.reversed(), null, 0, 1, mac(1), 50, 1_700_000_000_001L));

        send(PlanckTopovMessageHandler.START, "{\"mode\":\"paths\"}");
        send(PlanckTopovMessageHandler.SELECT, "{\"id\":\"00:00:00:00:00:0A/None\"}");

        ObjectNode h = ui.last(PlanckTopovMessageHandler.SHOW_HIGHLIGHTS);
        assertEquals(List.of(S1_S2), ids(h.path("links")));
        String css = linkHighlight(h, S1_S2).path("css").asText();
        assertTrue(css, css.contains("primary") && css.contains("planck-current-path")
                && css.contains("port-traffic-red"));
        assertEquals("the rest of the topology is subdued", "min", h.path("subdue").asText());

        JsonNode sel = ui.last(PlanckTopovMessageHandler.DATA).path("selection");
        assertEquals(A.toString(), sel.path("host").asText());
        assertEquals(B.toString(), sel.path("peer").asText());
        assertEquals(0, sel.path("currentPath").asInt());
        assertEquals(1, sel.path("paths").size());
        JsonNode p = sel.path("paths").get(0);
        assertTrue(p.path("current").asBoolean());
        assertEquals(S1.toString(), p.path("hops").get(0).path("device").asText());
        assertEquals(2, p.path("hops").get(0).path("port").asLong());
        assertEquals("only the host's own flow's reroute", 1, sel.path("reroutes").size());
        JsonNode r = sel.path("reroutes").get(0);
        assertEquals(87, r.path("latencyMicros").asLong());
        assertEquals(1, r.path("fromPath").asInt());
        assertEquals(S1_P2.toString(), r.path("congestedPort").asText());
        saveSample("paths", ui.last(PlanckTopovMessageHandler.DATA));
    }

    @Test
    public void pathsModeForAHostWithoutFlowsShowsNoPaths() throws Exception {
        twoLinks();
        send(PlanckTopovMessageHandler.START, "{\"mode\":\"paths\"}");
        send(PlanckTopovMessageHandler.SELECT, "{\"id\":\"00:00:00:00:00:0B/None\"}");
        JsonNode sel = ui.last(PlanckTopovMessageHandler.DATA).path("selection");
        assertEquals(0, sel.path("paths").size());
        assertEquals(-1, sel.path("currentPath").asInt());
        assertEquals(0, ui.last(PlanckTopovMessageHandler.SHOW_HIGHLIGHTS).path("links").size());
    }

    @Test
    public void badModeOrHostIsRefusedAndChangesNothing() throws Exception {
        twoLinks();
        loads.bps.put(S1_P2, 100_000_000L);
        send(PlanckTopovMessageHandler.START, "{\"mode\":\"congestion\"}");
        send(PlanckTopovMessageHandler.MODE, "{\"mode\":\"rainbow\"}");
        assertTrue(ui.last(PlanckTopovMessageHandler.DATA).path("error").asText().contains("rainbow"));
        send(PlanckTopovMessageHandler.SELECT, "{\"id\":\"not-a-host\"}");
        assertTrue(ui.last(PlanckTopovMessageHandler.DATA).path("error").asText().contains("not-a-host"));

        handler.refresh();
        assertEquals("still in congestion mode", "congestion",
                ui.last(PlanckTopovMessageHandler.DATA).path("mode").asText());
        assertEquals(0, ui.last(PlanckTopovMessageHandler.SHOW_HIGHLIGHTS).path("links").size());
    }

    @Test
    public void modeSwitchRedrawsAtOnce() throws Exception {
        twoLinks();
        loads.bps.put(S1_P2, 100_000_000L);
        send(PlanckTopovMessageHandler.START, "{\"mode\":\"congestion\"}");
        assertEquals(0, ui.last(PlanckTopovMessageHandler.SHOW_HIGHLIGHTS).path("links").size());
        send(PlanckTopovMessageHandler.MODE, "{\"mode\":\"load\"}");
        assertEquals(List.of(S1_S2), ids(ui.last(PlanckTopovMessageHandler.SHOW_HIGHLIGHTS).path("links")));
        assertTrue(linkHighlight(ui.last(PlanckTopovMessageHandler.SHOW_HIGHLIGHTS), S1_S2)
                .path("css").asText().contains("port-traffic-green"));
    }
}
