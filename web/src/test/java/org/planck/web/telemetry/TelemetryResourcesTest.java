package org.planck.web.telemetry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableSet;
import com.google.common.io.Resources;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.osgi.TestServiceDirectory;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.DefaultHost;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Host;
import org.onosproject.net.HostId;
import org.onosproject.net.HostLocation;
import org.onosproject.net.host.HostService;
import org.onosproject.net.host.HostServiceAdapter;
import org.onosproject.net.provider.ProviderId;
import org.onosproject.rest.resources.ResourceTest;
import org.planck.api.telemetry.FlowStateService;
import org.planck.api.telemetry.PlanckMetricsService;
import org.planck.api.telemetry.PortLoadService;
import org.planck.api.telemetry.TelemetryIngestService;
import org.planck.web.PlanckWebApplication;

import javax.ws.rs.client.Entity;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * REST: telemetry ingestion (good and bad batches), flow and port listings, metrics.
 */
public class TelemetryResourcesTest extends ResourceTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private FakeTelemetry telemetry;
    private String example;
    private java.util.List<org.planck.api.te.Reroute> reroutes;

    public TelemetryResourcesTest() {
        super(ResourceConfig.forApplicationClass(PlanckWebApplication.class));
    }

    @Before
    public void setUpServices() throws Exception {
        telemetry = new FakeTelemetry();
        telemetry.knownDevices.add(DeviceId.deviceId("of:0000000000000001"));
        Host h9 = new DefaultHost(ProviderId.NONE, HostId.hostId(MacAddress.valueOf("00:00:00:00:00:09"), VlanId.NONE),
                MacAddress.valueOf("00:00:00:00:00:09"), VlanId.NONE,
                new HostLocation(DeviceId.deviceId("of:0000000000000002"), org.onosproject.net.PortNumber.portNumber(1), 0),
                ImmutableSet.of(IpAddress.valueOf("10.0.0.9")));
        HostService hosts = new HostServiceAdapter() {
            @Override
            public Host getHost(HostId hostId) {
                return hostId.equals(h9.id()) ? h9 : null;
            }
        };
        reroutes = new java.util.ArrayList<>();
        org.planck.api.te.RerouteService rerouteLog = new FakeRerouteLog(reroutes);
        ServiceDirectory dir = new TestServiceDirectory()
                .add(org.planck.api.te.RerouteService.class, rerouteLog)
                .add(TelemetryIngestService.class, telemetry)
                .add(FlowStateService.class, telemetry)
                .add(PortLoadService.class, telemetry)
                .add(PlanckMetricsService.class, telemetry)
                .add(HostService.class, hosts);
        setServiceDirectory(dir);
        example = Resources.toString(Resources.getResource(getClass(), "example-batch.json"), StandardCharsets.UTF_8);
    }

    private Response post(String body) {
        return target("v1/telemetry/events").request(MediaType.APPLICATION_JSON_TYPE)
                .post(Entity.entity(body, MediaType.APPLICATION_JSON_TYPE));
    }

    private JsonNode json(Response r) throws Exception {
        return mapper.readTree(r.readEntity(String.class));
    }

    private String withMoreEvents() throws Exception {
        ObjectNode root = (ObjectNode) mapper.readTree(example);
        ObjectNode unknownDevice = (ObjectNode) root.withArray("events").get(0).deepCopy();
        unknownDevice.put("switch", "of:00000000000000ff");
        ObjectNode unknownPort = (ObjectNode) root.withArray("events").get(0).deepCopy();
        unknownPort.put("port", 99);
        ObjectNode otherFlow = (ObjectNode) root.withArray("events").get(0).deepCopy();
        ((ObjectNode) otherFlow.get("flow")).put("src", "10.0.0.2").put("dst", "10.0.0.3");
        otherFlow.put("port", 4).put("bytesPerSec", 1000.0);
        root.withArray("events").add(unknownDevice).add(unknownPort).add(otherFlow);
        return mapper.writeValueAsString(root);
    }

    @Test
    public void theDocumentedExampleIsAccepted() throws Exception {
        Response r = post(example);
        assertEquals(200, r.getStatus());
        JsonNode body = json(r);
        assertEquals(2, body.get("accepted").asInt());
        assertEquals(0, body.get("unknownDevice").asInt());
        assertEquals(0, body.get("unknownPort").asInt());
        assertEquals(3, body.size());
        assertEquals(1, telemetry.flows.size());
    }

    @Test
    public void unknownDevicesAndPortsAreCountedNotFatal() throws Exception {
        Response r = post(withMoreEvents());
        assertEquals(200, r.getStatus());
        JsonNode body = json(r);
        assertEquals(3, body.get("accepted").asInt());
        assertEquals(1, body.get("unknownDevice").asInt());
        assertEquals(1, body.get("unknownPort").asInt());
    }

    @Test
    public void badBatchesAre400WithTheReasonAndLeaveStateUnchanged() throws Exception {
        post(example);
        Map<String, ?> before = Map.copyOf(telemetry.flows);
        String[][] cases = {
            {"{\"version\":", "malformed JSON"},
            {example.replace("\"version\": 1", "\"version\": 4"), "version: unsupported 4"},
            {example.replace("\"sport\": 41234", "\"sport\": 70000"), "events[0].flow.sport: expected an integer in 0..65535"},
            {example.replace("\"CONGESTED\"", "\"BUSY\""), "events[1].state: unknown state \"BUSY\""},
            {example.replace("\"bytesPerSec\": 118000000.0", "\"bytesPerSec\": -1"), "events[0].bytesPerSec: expected a finite number >= 0"},
            {example.replace("\"collector\": \"c1\",", ""), "collector: missing"},
            {withMoreEvents().replace("\"src\":\"10.0.0.2\"", "\"src\":\"10.0.0.x\""), "events[4].flow.src: not an IP address"},
        };
        for (String[] c : cases) {
            Response r = post(c[0]);
            assertEquals(c[1], 400, r.getStatus());
            JsonNode body = json(r);
            assertEquals(400, body.get("code").asInt());
            assertThat(body.get("message").asText(), startsWith(c[1]));
        }
        assertEquals(before, telemetry.flows);
        assertTrue(telemetry.congestedPorts().contains(org.onosproject.net.ConnectPoint
                .deviceConnectPoint("of:0000000000000001/3")));
        assertEquals(cases.length, telemetry.rejected);
    }

    @Test
    public void flowsAreListedLargestFirstAndFiltered() throws Exception {
        post(withMoreEvents());
        JsonNode all = mapper.readTree(target("v1/flows").request().get(String.class));
        assertEquals(2, all.get("total").asInt());
        assertEquals("10.0.0.1", all.get("flows").get(0).get("flow").get("src").asText());
        assertEquals(118000000.0, all.get("flows").get(0).get("bytesPerSec").asDouble(), 0);
        assertTrue(all.get("flows").get(0).get("congested").asBoolean());

        JsonNode byIp = mapper.readTree(target("v1/flows").queryParam("host", "10.0.0.3").request().get(String.class));
        assertEquals(1, byIp.get("total").asInt());
        assertEquals("10.0.0.2", byIp.get("flows").get(0).get("flow").get("src").asText());
        JsonNode byHostId = mapper.readTree(target("v1/flows").queryParam("host", "00:00:00:00:00:09/None")
                .request().get(String.class));
        assertEquals(1, byHostId.get("total").asInt());
        assertEquals("10.0.0.9", byHostId.get("flows").get(0).get("flow").get("dst").asText());
        JsonNode byPort = mapper.readTree(target("v1/flows").queryParam("port", "of:0000000000000001/4")
                .request().get(String.class));
        assertEquals(1, byPort.get("total").asInt());
        JsonNode congested = mapper.readTree(target("v1/flows").queryParam("congested", "true")
                .request().get(String.class));
        assertEquals(1, congested.get("total").asInt());
        assertEquals(3, congested.get("flows").get(0).get("port").asInt());
        JsonNode limited = mapper.readTree(target("v1/flows").queryParam("limit", "1").request().get(String.class));
        assertEquals(2, limited.get("total").asInt());
        assertEquals(1, limited.get("flows").size());
    }

    @Test
    public void badFlowFiltersAreRejected() throws Exception {
        Response r = target("v1/flows").queryParam("host", "not-an-ip").request().get();
        assertEquals(400, r.getStatus());
        assertThat(json(r).get("message").asText(), startsWith("host: not an IP address or host id"));
        r = target("v1/flows").queryParam("host", "00:00:00:00:00:77/None").request().get();
        assertEquals(404, r.getStatus());
        assertThat(json(r).get("message").asText(), startsWith("host: unknown host"));
        r = target("v1/flows").queryParam("port", "of:1").request().get();
        assertEquals(400, r.getStatus());
        assertThat(json(r).get("message").asText(), startsWith("port: expected device/port"));
        r = target("v1/flows").queryParam("limit", "-1").request().get();
        assertEquals(400, r.getStatus());
    }

    @Test
    public void portsAreListedByUtilisation() throws Exception {
        post(withMoreEvents());
        JsonNode ports = mapper.readTree(target("v1/ports").request().get(String.class)).get("ports");
        assertEquals(2, ports.size());
        assertEquals(3, ports.get(0).get("port").asInt());
        assertEquals(0.944, ports.get(0).get("utilization").asDouble(), 1e-9);
        assertEquals(944_000_000L, ports.get(0).get("loadBps").asLong());
        assertTrue(ports.get(0).get("congested").asBoolean());
        assertEquals(4, ports.get(1).get("port").asInt());
        JsonNode calm = mapper.readTree(target("v1/ports").queryParam("congested", "false")
                .request().get(String.class)).get("ports");
        assertEquals(1, calm.size());
        assertEquals(4, calm.get(0).get("port").asInt());
        assertEquals(1, mapper.readTree(target("v1/ports").queryParam("limit", "1")
                .request().get(String.class)).get("ports").size());
    }

    @Test
    public void theRerouteLogListsNewestFirstWithLatencies() throws Exception {
        org.planck.api.FlowKey flow = org.planck.api.FlowKey.of(IpAddress.valueOf("10.0.0.1"),
                IpAddress.valueOf("10.0.0.9"), 6, 41234, 5201);
        reroutes.add(new org.planck.api.te.Reroute(flow,
                org.onosproject.net.ConnectPoint.deviceConnectPoint("of:0000000000000001/3"), 0, 2,
                MacAddress.valueOf("02:70:00:00:00:29"), 87, 1000));
        reroutes.add(new org.planck.api.te.Reroute(flow, null, 2, 1,
                MacAddress.valueOf("02:70:00:00:00:19"), 0, 900));
        JsonNode body = mapper.readTree(target("v1/reroutes").request().get(String.class));
        assertEquals(2, body.get("total").asInt());
        JsonNode first = body.get("reroutes").get(0);
        assertEquals(87, first.get("decisionLatencyMicros").asInt());
        assertEquals(3, first.get("congestedPort").get("port").asInt());
        assertEquals("02:70:00:00:00:29", first.get("shadowMac").asText());
        assertTrue(body.get("reroutes").get(1).get("congestedPort").isNull());
        assertEquals(1, mapper.readTree(target("v1/reroutes").queryParam("limit", "1").request().get(String.class))
                .get("reroutes").size());
        assertEquals(400, target("v1/reroutes").queryParam("limit", "-5").request().get().getStatus());
    }

    @Test
    public void metricsAreServedAsPrometheusText() {
        Response r = target("metrics").request().get();
        assertEquals(200, r.getStatus());
        assertThat(r.getHeaderString("Content-Type"), startsWith("text/plain"));
        assertThat(r.getHeaderString("Content-Type"), containsString("version=0.0.4"));
        assertThat(r.readEntity(String.class), containsString("planck_flow_records 0.0"));
    }
}
