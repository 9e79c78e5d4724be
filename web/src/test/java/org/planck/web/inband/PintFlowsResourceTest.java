package org.planck.web.inband;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.TestServiceDirectory;
import org.onlab.packet.IpAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.rest.resources.ResourceTest;
import org.planck.api.FlowKey;
import org.planck.api.inband.ConformanceStatus;
import org.planck.api.inband.FlowConformance;
import org.planck.api.inband.PathConformanceListener;
import org.planck.api.inband.PathConformanceService;
import org.planck.api.inband.PintCounters;
import org.planck.web.PlanckWebApplication;

import javax.ws.rs.core.Response;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * REST: GET /v1/pint/flows (worst first, filters, counters) and /v1/pint/flows/{5-tuple}, bad
 * parameters answered 400 with the reason.
 */
public class PintFlowsResourceTest extends ResourceTest {
    private static final DeviceId E1 = DeviceId.deviceId("of:0000000000000001");
    private static final DeviceId A1 = DeviceId.deviceId("of:0000000000000005");
    private static final DeviceId A2 = DeviceId.deviceId("of:0000000000000006");
    private static final DeviceId E2 = DeviceId.deviceId("of:0000000000000002");
    private static final FlowKey MOVED = FlowKey.of(IpAddress.valueOf("10.0.0.1"), IpAddress.valueOf("10.0.1.2"),
            6, 10001, 5001);
    private static final FlowKey BROKEN = FlowKey.of(IpAddress.valueOf("10.0.0.3"), IpAddress.valueOf("10.0.1.2"),
            6, 10002, 5001);
    private final ObjectMapper mapper = new ObjectMapper();

    public PintFlowsResourceTest() {
        super(ResourceConfig.forApplicationClass(PlanckWebApplication.class));
    }

    @Before
    public void setUpServices() {
        FlowConformance moved = FlowConformance.builder(MOVED, ConformanceStatus.MOVED_CONFIRMED)
                .traced(List.of(E1, A2, E2), 1540, 9, 2).planned(1, List.of(E1, A2, E2)).moved(1500, 0, 1, 1)
                .statusSince(1540).build();
        FlowConformance broken = FlowConformance.builder(BROKEN, ConformanceStatus.NON_CONFORMING)
                .traced(List.of(E1, A1, E2), 1200, 14, 1).planned(0, List.of(E1, A2, E2)).statusSince(1200).build();
        PathConformanceService service = new PathConformanceService() {
            @Override
            public Collection<FlowConformance> flows() {
                return List.of(moved, broken);
            }

            @Override
            public Optional<FlowConformance> flow(FlowKey flow) {
                return flows().stream().filter(c -> c.flow().equals(flow)).findFirst();
            }

            @Override
            public PintCounters counters() {
                return new PintCounters(2, 3, 0, 0, 0, 1, 1);
            }

            @Override
            public void addListener(PathConformanceListener listener) {
            }

            @Override
            public void removeListener(PathConformanceListener listener) {
            }
        };
        setServiceDirectory(new TestServiceDirectory().add(PathConformanceService.class, service));
    }

    private JsonNode get(String path, int status) throws Exception {
        String[] parts = path.split("\\?", 2);
        javax.ws.rs.client.WebTarget t = target(parts[0]);
        if (parts.length > 1) {
            String[] kv = parts[1].split("=", 2);
            t = t.queryParam(kv[0], kv[1]);
        }
        Response r = t.request().get();
        assertEquals(status, r.getStatus());
        return mapper.readTree(r.readEntity(String.class));
    }

    @Test
    public void listsFlowsWorstFirstWithCounters() throws Exception {
        JsonNode body = get("v1/pint/flows", 200);
        assertEquals(2, body.get("flows").size());
        JsonNode first = body.get("flows").get(0);
        assertEquals("NON_CONFORMING", first.get("status").asText());
        assertEquals("10.0.0.3", first.get("flow").get("src").asText());
        assertEquals("of:0000000000000005", first.get("tracedPath").get(1).asText());
        assertEquals("of:0000000000000006", first.get("plannedPath").get(1).asText());
        assertTrue(first.get("movedMillis").isNull());
        assertTrue(first.get("confirmationMillis").isNull());
        JsonNode second = body.get("flows").get(1);
        assertEquals("MOVED_CONFIRMED", second.get("status").asText());
        assertEquals(40, second.get("confirmationMillis").asLong());
        assertEquals(9, second.get("tracePackets").asLong());
        assertEquals(1, second.get("movedTo").asInt());
        assertEquals(1, body.get("counters").get("nonConforming").asLong());
        assertEquals(3, body.get("counters").get("paths").asLong());

        assertEquals(1, get("v1/pint/flows?status=moved_confirmed", 200).get("flows").size());
        assertEquals(1, get("v1/pint/flows?host=10.0.0.3", 200).get("flows").size());
        assertEquals(2, get("v1/pint/flows?host=10.0.1.2", 200).get("flows").size());
        assertEquals(1, get("v1/pint/flows?limit=1", 200).get("flows").size());
    }

    @Test
    public void oneFlow() throws Exception {
        assertEquals("MOVED_CONFIRMED", get("v1/pint/flows/10.0.0.1/10.0.1.2/6/10001/5001", 200)
                .get("status").asText());
        assertTrue(get("v1/pint/flows/10.0.0.1/10.0.1.2/6/10009/5001", 404).get("message").asText()
                .startsWith("no PINT state for flow"));
    }

    @Test
    public void badParametersAre400WithTheReason() throws Exception {
        assertEquals("limit: must be >= 0", get("v1/pint/flows?limit=-1", 400).get("message").asText());
        assertTrue(get("v1/pint/flows?status=LOST", 400).get("message").asText()
                .startsWith("status: unknown status \"LOST\" (expected one of [CONFORMING"));
        assertEquals("host: not an IP address: \"h1\"", get("v1/pint/flows?host=h1", 400).get("message").asText());
        assertEquals("src: not an IP address: \"x\"",
                get("v1/pint/flows/x/10.0.1.2/6/1/2", 400).get("message").asText());
        assertEquals("proto: must be 0-255, got 256",
                get("v1/pint/flows/10.0.0.1/10.0.1.2/256/1/2", 400).get("message").asText());
        assertEquals("sport: not a number: \"a\"",
                get("v1/pint/flows/10.0.0.1/10.0.1.2/6/a/2", 400).get("message").asText());
        assertEquals("dport: must be 0-65535, got 65536",
                get("v1/pint/flows/10.0.0.1/10.0.1.2/6/1/65536", 400).get("message").asText());
        assertEquals("dst: IP version differs from src",
                get("v1/pint/flows/10.0.0.1/::1/6/1/2", 400).get("message").asText());
    }
}
