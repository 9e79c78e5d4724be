package org.planck.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.osgi.TestServiceDirectory;
import org.onosproject.net.DefaultDevice;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.provider.ProviderId;
import org.onlab.packet.ChassisId;
import org.onosproject.rest.resources.ResourceTest;
import org.planck.api.ForwardingMapService;
import org.planck.api.MirrorMode;
import org.planck.api.MirrorService;
import org.planck.api.ShadowRouteService;
import org.planck.api.TestPlanckServices;
import org.planck.api.config.PlanckConfigService;
import org.planck.api.config.PlanckSettings;

import javax.ws.rs.client.Entity;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.util.Set;

import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThat;
import static org.junit.Assert.assertTrue;
import static org.planck.api.TestPlanckServices.A;
import static org.planck.api.TestPlanckServices.B;
import static org.planck.api.TestPlanckServices.S1;
import static org.planck.api.TestPlanckServices.S2;
import static org.planck.api.TestPlanckServices.S3;

public class PlanckResourcesTest extends ResourceTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private final TestPlanckServices.Config config = new TestPlanckServices.Config();
    private final TestPlanckServices.Mirrors mirrors = new TestPlanckServices.Mirrors();

    private static final String VALID = "{\"shadowPathsPerDestination\": 2, \"collectors\": [{\"id\": \"c1\","
            + " \"address\": \"127.0.0.1\", \"controlPort\": 9100, \"switches\": [{\"device\":"
            + " \"of:0000000000000001\", \"mirrorPort\": 5, \"rspanVlan\": 1}]}]}";

    public PlanckResourcesTest() {
        super(ResourceConfig.forApplicationClass(PlanckWebApplication.class));
    }

    @Before
    public void setUpServices() {
        ProviderId pid = new ProviderId("of", "test");
        Set<DeviceId> known = Set.of(S1, S2, S3);
        DeviceService devices = new DeviceServiceAdapter() {
            @Override
            public Device getDevice(DeviceId id) {
                return known.contains(id) ? new DefaultDevice(pid, id, Device.Type.SWITCH, "m", "h", "s", "1",
                        new ChassisId(1)) : null;
            }
        };
        mirrors.sessions.add(TestPlanckServices.session(S1, MirrorMode.SWITCH_MIRROR));
        mirrors.sessions.add(TestPlanckServices.session(S2, MirrorMode.FLOW_OUTPUT));
        ServiceDirectory directory = new TestServiceDirectory()
                .add(PlanckConfigService.class, config)
                .add(MirrorService.class, mirrors)
                .add(ShadowRouteService.class, new TestPlanckServices.Routes())
                .add(ForwardingMapService.class, new TestPlanckServices.Maps())
                .add(DeviceService.class, devices);
        setServiceDirectory(directory);
    }

    private Response get(String path) {
        return target(path).request(MediaType.APPLICATION_JSON).get();
    }

    private Response get(String path, String src) {
        return target(path).queryParam("src", src).request(MediaType.APPLICATION_JSON).get();
    }

    private Response put(String path, String body) {
        return target(path).request(MediaType.APPLICATION_JSON).put(Entity.entity(body, MediaType.APPLICATION_JSON));
    }

    private JsonNode json(Response r) throws Exception {
        return mapper.readTree(r.readEntity(String.class));
    }

    private void assertError(Response r, int status, String messagePart) throws Exception {
        assertEquals(status, r.getStatus());
        JsonNode body = json(r);
        assertEquals(status, body.get("code").asInt());
        assertThat(body.get("message").asText(), containsString(messagePart));
    }

    @Test
    public void configRoundTrip() throws Exception {
        assertError(get("v1/config"), 404, "not configured");
        Response put = put("v1/config", VALID);
        assertEquals(200, put.getStatus());
        assertEquals(mapper.readTree(VALID), json(put));
        assertEquals(mapper.readTree(VALID), json(get("v1/config")));
        assertEquals(2, config.settings.shadowPathsPerDestination());
    }

    @Test
    public void malformedJsonIsRejectedAndNothingChanges() throws Exception {
        put("v1/config", VALID).close();
        PlanckSettings before = config.settings;
        assertError(put("v1/config", "{\"shadowPathsPerDestination\": 2,"), 400, "malformed JSON");
        assertError(put("v1/config", "not json at all"), 400, "malformed JSON");
        assertError(put("v1/config", ""), 400, "empty body");
        assertEquals(before, config.settings);
        assertEquals(mapper.readTree(VALID), json(get("v1/config")));
    }

    @Test
    public void invalidConfigIsRejectedAndNothingChanges() throws Exception {
        put("v1/config", VALID).close();
        PlanckSettings before = config.settings;
        ObjectNode bad = (ObjectNode) mapper.readTree(VALID);
        bad.put("hysteresisPct", 90);
        assertError(put("v1/config", bad.toString()), 400, "hysteresisPct must be in [0, congestionThresholdPct)");
        ObjectNode badVlan = (ObjectNode) mapper.readTree(VALID);
        ((ObjectNode) badVlan.get("collectors").get(0).get("switches").get(0)).put("rspanVlan", 5000);
        assertError(put("v1/config", badVlan.toString()), 400, "rspanVlan must be in [1, 4094]");
        assertError(put("v1/config", "[1, 2]"), 400, "must be a JSON object");
        assertEquals(before, config.settings);
    }

    @Test
    public void nonJsonBodyIsRefusedWithAJsonError() throws Exception {
        put("v1/config", VALID).close();
        PlanckSettings before = config.settings;
        Response r = target("v1/config").request(MediaType.APPLICATION_JSON)
                .put(Entity.entity(VALID, MediaType.TEXT_PLAIN));
        assertEquals(415, r.getStatus());
        String body = r.readEntity(String.class);
        assertEquals(body, 415, mapper.readTree(body).get("code").asInt());
        assertThat(mapper.readTree(body).get("message").asText(), containsString("application/json"));
        assertEquals(before, config.settings);
    }

    @Test
    public void deleteRemovesTheConfig() throws Exception {
        put("v1/config", VALID).close();
        assertEquals(204, target("v1/config").request().delete().getStatus());
        assertNull(config.settings);
        assertError(get("v1/config"), 404, "not configured");
        assertError(target("v1/config").request().delete(), 404, "not configured");
    }

    @Test
    public void mirrors() throws Exception {
        JsonNode all = json(get("v1/mirrors"));
        assertEquals(2, all.get("mirrors").size());
        assertEquals("SWITCH_MIRROR", all.get("mirrors").get(0).get("mode").asText());
        assertEquals("FLOW_OUTPUT", all.get("mirrors").get(1).get("mode").asText());
        JsonNode one = json(get("v1/mirrors/" + S2));
        assertEquals(S2.toString(), one.get("device").asText());
        assertEquals(7, one.get("rspanVlan").asInt());
        assertEquals(2, one.get("monitoredPorts").size());
        assertError(get("v1/mirrors/of:00000000000000ff"), 404, "unknown device");
        assertError(get("v1/mirrors/" + S3), 404, "no mirror port configured");
    }

    @Test
    public void pathsOfAHost() throws Exception {
        JsonNode r = json(get("v1/paths/" + B));
        assertEquals("00:00:00:00:00:0b", r.get("host").get("mac").asText());
        assertEquals(S2.toString(), r.get("host").get("device").asText());
        assertEquals(1, r.get("trees").size());
        JsonNode tree = r.get("trees").get(0);
        assertEquals("02:70:00:00:00:00", tree.get("shadowMac").asText());
        assertEquals(2, tree.get("nextHops").size());

        JsonNode pair = json(get("v1/paths/" + B, A.toString()));
        assertEquals(0, pair.get("chosenIndex").asInt());
        JsonNode hops = pair.get("paths").get(0).get("hops");
        assertEquals(S1.toString(), hops.get(0).get("device").asText());
        assertEquals(2, hops.get(0).get("port").asInt());
        assertEquals(S2.toString(), hops.get(1).get("device").asText());
        assertEquals(1, hops.get(1).get("port").asInt());
    }

    @Test
    public void badOrUnknownHostsAreRejected() throws Exception {
        assertError(get("v1/paths/not-a-mac"), 400, "malformed MAC");
        assertError(get("v1/paths/00:00:00:00:00:99"), 404, "unknown host");
        assertError(get("v1/paths/" + B, "zz"), 400, "malformed MAC");
        assertError(get("v1/paths/" + B, "00:00:00:00:00:98"), 404, "unknown host");
    }

    @Test
    public void collectorsAndForwardingMaps() throws Exception {
        put("v1/config", VALID).close();
        JsonNode list = json(get("v1/collectors"));
        assertEquals(1, list.get("collectors").size());
        JsonNode c1 = list.get("collectors").get(0);
        assertEquals("c1", c1.get("id").asText());
        assertEquals(12, c1.get("push").get("deliveredGeneration").asLong());
        JsonNode map = json(get("v1/collectors/c1/forwarding"));
        assertEquals(1, map.get("version").asInt());
        assertEquals(12, map.get("generation").asLong());
        assertEquals(2, map.get("switches").get(0).get("entries").size());
        assertError(get("v1/collectors/c9/forwarding"), 404, "unknown collector c9");
    }

    @Test
    public void contractVersionsStillServed() throws Exception {
        JsonNode v = json(get("v1/versions"));
        assertTrue(v.has("forwardingMap"));
    }
}
