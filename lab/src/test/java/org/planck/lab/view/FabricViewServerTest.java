package org.planck.lab.view;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.net.ConnectPoint;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/** The live view's HTTP side: page, vendored d3, and the JSON of a scripted fat tree. */
public class FabricViewServerTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private FabricViewServer server;
    private final ScriptedFabricView view = new ScriptedFabricView();

    @Before
    public void setUp() throws Exception {
        server = FabricViewServer.start(new InetSocketAddress("127.0.0.1", 0), () -> 42L);
    }

    @After
    public void tearDown() {
        server.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.url() + path.substring(1)))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode link(JsonNode v, String id) {
        for (JsonNode l : v.path("links")) {
            if (id.equals(l.path("id").asText())) {
                return l;
            }
        }
        throw new AssertionError("no link " + id + " in " + v.path("links"));
    }

    @Test
    public void servesThePageAndItsScripts() throws Exception {
        HttpResponse<String> page = get("/");
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("static/fabric-view.js"));
        HttpResponse<String> d3 = get("/static/d3.min.js");
        assertEquals(200, d3.statusCode());
        assertTrue("d3 v7 vendored", d3.body().contains("https://d3js.org v7.9.0"));
        assertEquals(200, get("/static/d3.LICENSE").statusCode());
        assertEquals(404, get("/etc/passwd").statusCode());
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(server.url() + "api/view"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
    }

    @Test
    public void saysSoBetweenRuns() throws Exception {
        JsonNode v = MAPPER.readTree(get("/api/view").body());
        assertFalse(v.path("running").asBoolean(true));
    }

    @Test
    public void viewCarriesLoadsCongestionMovesAndLatencies() throws Exception {
        ConnectPoint hot = view.edgeUplink();
        view.utilisation.put(hot, 0.95);
        view.congested.add(hot);
        ConnectPoint warm = view.aggUplink();
        view.utilisation.put(warm, 0.40);
        view.moves.add(ScriptedFabricView.move(0, hot, 850));
        view.moves.add(ScriptedFabricView.move(1, hot, 900));
        view.latencies = new long[]{1, 3, 850, 900, 1500};
        server.show(view);

        JsonNode v = MAPPER.readTree(get("/api/view").body());
        assertTrue(v.path("running").asBoolean());
        assertEquals("PLANCK", v.path("mode").asText());
        assertEquals("a source without a run label is named by its mode", "PLANCK", v.path("run").asText());
        assertEquals(42L, v.path("timeMillis").asLong());
        // k=4 fat tree: 4 core, 8 aggregation, 8 edge switches, 16 hosts, 32 switch-switch lines.
        JsonNode topo = v.path("topology");
        assertEquals(20, topo.path("switches").size());
        assertEquals(16, topo.path("hosts").size());
        assertEquals(32, topo.path("links").size());
        assertEquals(32, v.path("links").size());
        int[] tiers = new int[3];
        topo.path("switches").forEach(s -> tiers[s.path("tier").asInt()]++);
        assertEquals(4, tiers[0]);
        assertEquals(8, tiers[1]);
        assertEquals(8, tiers[2]);

        String hotId = FabricViewJson.lineId(view.firstLink(
                org.planck.app.routing.algo.FatTreeFabric.edgeId(0, 0),
                org.planck.app.routing.algo.FatTreeFabric.aggregationId(0, 0)));
        JsonNode h = link(v, hotId);
        assertTrue(h.path("congested").asBoolean());
        assertEquals(hot.toString(), h.path("port").asText());
        assertEquals(0.95, h.path("utilization").asDouble(), 1e-9);
        assertEquals(Math.round(0.95 * h.path("capacityBps").asLong()), h.path("loadBps").asLong());
        assertEquals(1, v.path("congestedPorts").size());
        assertEquals(hot.toString(), v.path("congestedPorts").get(0).asText());

        assertEquals(2, v.path("movesTotal").asInt());
        assertEquals("newest first", 900, v.path("moves").get(0).path("latencyMicros").asLong());
        assertEquals(hot.toString(), v.path("moves").get(0).path("congestedPort").asText());

        JsonNode hist = v.path("latencyHistogram");
        assertEquals(5, hist.path("count").asInt());
        assertEquals(850, hist.path("p50").asLong());
        long total = 0;
        for (JsonNode b : hist.path("bins")) {
            total += b.path("count").asLong();
        }
        assertEquals(5, total);
        // 1500 µs is in [1024, 2048): the last bin.
        JsonNode last = hist.path("bins").get(hist.path("bins").size() - 1);
        assertEquals(1024, last.path("lo").asLong());
        assertEquals(1, last.path("count").asLong());
    }
}
