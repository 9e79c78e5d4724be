package org.planck.web.te;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.osgi.TestServiceDirectory;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.event.ListenerService;
import org.onosproject.net.ConnectPoint;
import org.onosproject.rest.resources.ResourceTest;
import org.planck.api.FlowKey;
import org.planck.api.te.PlanckRerouteEvent;
import org.planck.api.te.PlanckRerouteListener;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteRejectedException;
import org.planck.api.te.RerouteService;
import org.planck.api.te.TeMode;
import org.planck.api.te.TeService;
import org.planck.web.PlanckWebApplication;

import javax.ws.rs.client.Entity;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * REST: TE mode get/set, reroute log, manual reroute, and bad input (nothing changes).
 */
public class TeResourcesTest extends ResourceTest {
    private static final FlowKey LIVE = FlowKey.of(IpAddress.valueOf("10.0.0.2"), IpAddress.valueOf("10.2.1.3"),
            6, 40001, 5201);
    private final ObjectMapper mapper = new ObjectMapper();
    private FakeTe te;
    private final List<Reroute> log = new ArrayList<>();

    public TeResourcesTest() {
        super(ResourceConfig.forApplicationClass(PlanckWebApplication.class));
    }

    /** A TE service with one live flow on 4 paths; records what it was asked to do. */
    static final class FakeTe implements TeService {
        TeMode requested = TeMode.PLANCK;
        boolean enabled = true;
        final List<Reroute> done = new ArrayList<>();
        final List<Reroute> log;

        FakeTe(List<Reroute> log) {
            this.log = log;
        }

        @Override
        public TeMode requestedMode() {
            return requested;
        }

        @Override
        public TeMode mode() {
            return enabled ? requested : TeMode.STATIC;
        }

        @Override
        public boolean teEnabled() {
            return enabled;
        }

        @Override
        public void setMode(TeMode mode) {
            requested = mode;
        }

        @Override
        public Reroute reroute(FlowKey flow, int pathIndex) throws RerouteRejectedException {
            if (!flow.equals(LIVE)) {
                throw new RerouteRejectedException(RerouteRejectedException.Reason.UNKNOWN_FLOW, "no live flow " + flow);
            }
            if (pathIndex >= 4) {
                throw new RerouteRejectedException(RerouteRejectedException.Reason.PATH_OUT_OF_RANGE,
                        "path " + pathIndex + " out of range");
            }
            Reroute r = new Reroute(flow, null, 0, pathIndex, MacAddress.valueOf("02:70:00:00:00:0" + pathIndex),
                    12, 1_763_718_000_000L);
            done.add(r);
            log.add(0, r);
            return r;
        }
    }

    /** The reroute log as a list. */
    static final class ListLog implements RerouteService {
        private final List<Reroute> log;

        ListLog(List<Reroute> log) {
            this.log = log;
        }

        @Override
        public void report(PlanckRerouteEvent.Type type, Reroute reroute) {
            log.add(0, reroute);
        }

        @Override
        public List<Reroute> recent(int max) {
            return log.subList(0, Math.min(max, log.size()));
        }

        @Override
        public long rerouteCount() {
            return log.size();
        }

        @Override
        public void addListener(PlanckRerouteListener listener) {
        }

        @Override
        public void removeListener(PlanckRerouteListener listener) {
        }
    }

    @Before
    public void setUpServices() {
        te = new FakeTe(log);
        log.add(new Reroute(LIVE, ConnectPoint.deviceConnectPoint("of:0000000000000001/3"), 1, 2,
                MacAddress.valueOf("02:70:00:00:00:02"), 57, 1_763_718_000_000L));
        ServiceDirectory dir = new TestServiceDirectory()
                .add(TeService.class, te)
                .add(RerouteService.class, new ListLog(log));
        setServiceDirectory(dir);
    }

    private Response put(String path, String body, MediaType type) {
        return target(path).request(MediaType.APPLICATION_JSON_TYPE).put(Entity.entity(body, type));
    }

    private Response post(String body) {
        return target("v1/flows/reroute").request(MediaType.APPLICATION_JSON_TYPE)
                .post(Entity.entity(body, MediaType.APPLICATION_JSON_TYPE));
    }

    private JsonNode json(Response r) throws Exception {
        return mapper.readTree(r.readEntity(String.class));
    }

    private void assertError(Response r, int status, String reason) throws Exception {
        assertEquals(status, r.getStatus());
        JsonNode body = json(r);
        assertEquals(status, body.get("code").asInt());
        assertThat(body.get("message").asText(), containsString(reason));
    }

    @Test
    public void getsAndSetsTheMode() throws Exception {
        JsonNode m = mapper.readTree(target("v1/te/mode").request().get(String.class));
        assertEquals("PLANCK", m.get("mode").asText());
        assertTrue(m.get("teEnabled").asBoolean());
        Response r = put("v1/te/mode", "{\"mode\":\"poll\"}", MediaType.APPLICATION_JSON_TYPE);
        assertEquals(200, r.getStatus());
        assertEquals("POLL", json(r).get("mode").asText());
        assertEquals(TeMode.POLL, te.requested);
    }

    @Test
    public void modeShowsStaticWhileNetcfgDisablesTe() throws Exception {
        te.enabled = false;
        JsonNode m = mapper.readTree(target("v1/te/mode").request().get(String.class));
        assertEquals("STATIC", m.get("mode").asText());
        assertEquals("PLANCK", m.get("requestedMode").asText());
        assertTrue(!m.get("teEnabled").asBoolean());
    }

    @Test
    public void badModeRequestsChangeNothing() throws Exception {
        assertError(put("v1/te/mode", "{\"mode\":\"FAST\"}", MediaType.APPLICATION_JSON_TYPE), 400, "FAST");
        assertError(put("v1/te/mode", "{\"mode\":3}", MediaType.APPLICATION_JSON_TYPE), 400, "mode");
        assertError(put("v1/te/mode", "{}", MediaType.APPLICATION_JSON_TYPE), 400, "mode: missing");
        assertError(put("v1/te/mode", "{\"mode\":\"POLL\",\"x\":1}", MediaType.APPLICATION_JSON_TYPE), 400,
                "x: unknown field");
        assertError(put("v1/te/mode", "{\"mode\":", MediaType.APPLICATION_JSON_TYPE), 400, "malformed JSON");
        assertError(put("v1/te/mode", "[\"POLL\"]", MediaType.APPLICATION_JSON_TYPE), 400, "object");
        assertError(put("v1/te/mode", "mode=POLL", MediaType.TEXT_PLAIN_TYPE), 415, "application/json");
        assertEquals(TeMode.PLANCK, te.requested);
    }

    @Test
    public void listsReroutesWithLatencies() throws Exception {
        JsonNode r = mapper.readTree(target("v1/te/reroutes").request().get(String.class));
        assertEquals(1, r.get("total").asInt());
        JsonNode first = r.get("reroutes").get(0);
        assertEquals(57, first.get("decisionLatencyMicros").asInt());
        assertEquals("10.0.0.2", first.get("flow").get("src").asText());
        assertError(target("v1/te/reroutes").queryParam("limit", -1).request().get(), 400, "limit");
    }

    @Test
    public void manualRerouteMovesTheFlow() throws Exception {
        Response r = post("{\"flow\":{\"src\":\"10.0.0.2\",\"dst\":\"10.2.1.3\",\"proto\":6,\"sport\":40001,"
                + "\"dport\":5201},\"path\":3}");
        assertEquals(200, r.getStatus());
        JsonNode body = json(r);
        assertEquals(3, body.get("toPath").asInt());
        assertEquals(1, te.done.size());
        assertEquals(LIVE, te.done.get(0).flow());
    }

    @Test
    public void badManualReroutesChangeNothing() throws Exception {
        String flow = "{\"src\":\"10.0.0.2\",\"dst\":\"10.2.1.3\",\"proto\":6,\"sport\":40001,\"dport\":5201}";
        assertError(post("{\"flow\":{\"src\":\"10.0.0.9\",\"dst\":\"10.2.1.3\",\"proto\":6,\"sport\":1,"
                + "\"dport\":2},\"path\":0}"), 404, "no live flow");
        assertError(post("{\"flow\":" + flow + ",\"path\":4}"), 400, "out of range");
        assertError(post("{\"flow\":" + flow + ",\"path\":-1}"), 400, "path: expected an integer");
        assertError(post("{\"flow\":" + flow + ",\"path\":\"1\"}"), 400, "path: expected an integer");
        assertError(post("{\"flow\":" + flow + "}"), 400, "path: missing");
        assertError(post("{\"path\":1}"), 400, "flow: missing");
        assertError(post("{\"flow\":{\"src\":\"10.0.0.256\",\"dst\":\"10.2.1.3\",\"proto\":6,\"sport\":1,"
                + "\"dport\":2},\"path\":0}"), 400, "flow.src: not an IP address");
        assertError(post("{\"flow\":{\"src\":\"10.0.0.2\",\"dst\":\"::1\",\"proto\":6,\"sport\":1,"
                + "\"dport\":2},\"path\":0}"), 400, "IP version");
        assertError(post("{\"flow\":{\"src\":\"10.0.0.2\",\"dst\":\"10.2.1.3\",\"proto\":6,\"sport\":70000,"
                + "\"dport\":2},\"path\":0}"), 400, "flow.sport");
        assertError(post("{\"flow\":" + flow + ",\"path\":1,\"why\":true}"), 400, "why: unknown field");
        assertError(post("not json"), 400, "malformed JSON");
        assertEquals(0, te.done.size());
        assertEquals(1, log.size());
    }
}
