package org.planck.web.inband;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.TestServiceDirectory;
import org.onosproject.net.ConnectPoint;
import org.onosproject.rest.resources.ResourceTest;
import org.planck.api.inband.IntCounters;
import org.planck.api.inband.IntPortService;
import org.planck.api.inband.IntPortState;
import org.planck.api.telemetry.IntPortSignal;
import org.planck.web.PlanckWebApplication;

import javax.ws.rs.core.Response;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * REST: GET /v1/int/ports (filters, order, counters) and /v1/int/ports/{device}/{port}, bad
 * parameters answered 400 with the reason.
 */
public class IntPortsResourceTest extends ResourceTest {
    private static final ConnectPoint P1 = ConnectPoint.deviceConnectPoint("of:0000000000000002/4");
    private static final ConnectPoint P2 = ConnectPoint.deviceConnectPoint("of:0000000000000003/1");
    private final ObjectMapper mapper = new ObjectMapper();
    private final Map<ConnectPoint, IntPortState> states = new LinkedHashMap<>();

    public IntPortsResourceTest() {
        super(ResourceConfig.forApplicationClass(PlanckWebApplication.class));
    }

    @Before
    public void setUpServices() {
        long us = 1_763_718_000_220_001L;
        IntPortState p1 = IntPortState.empty(P1)
                .with(new IntPortSignal(P1, IntPortSignal.Signal.QUEUE_OCCUPANCY, 900, 0,
                        IntPortSignal.Cause.INTERVAL, us), "c1", 1000)
                .with(new IntPortSignal(P1, IntPortSignal.Signal.HOP_LATENCY, 260, -1,
                        IntPortSignal.Cause.INTERVAL, us), "c1", 1000)
                .withQueueCongested(true);
        IntPortState p2 = IntPortState.empty(P2)
                .with(new IntPortSignal(P2, IntPortSignal.Signal.QUEUE_OCCUPANCY, 10, 3,
                        IntPortSignal.Cause.NEW_KEY, us), "c1", 1000);
        states.put(P2, p2);
        states.put(P1, p1);
        IntPortService service = new IntPortService() {
            @Override
            public Collection<IntPortState> ports() {
                return states.values();
            }

            @Override
            public Optional<IntPortState> port(ConnectPoint port) {
                return Optional.ofNullable(states.get(port));
            }

            @Override
            public IntCounters counters() {
                return new IntCounters(3, 1, 0, 0, 1, 0);
            }
        };
        setServiceDirectory(new TestServiceDirectory().add(IntPortService.class, service));
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
    public void listsPortsLargestQueueFirstWithCounters() throws Exception {
        JsonNode body = get("v1/int/ports", 200);
        assertEquals(2, body.get("ports").size());
        JsonNode first = body.get("ports").get(0);
        assertEquals("of:0000000000000002", first.get("switch").asText());
        assertEquals(4, first.get("port").asLong());
        assertEquals(900, first.get("queues").get(0).get("occupancy").asLong());
        assertEquals(0, first.get("queues").get(0).get("queue").asInt());
        assertEquals(260, first.get("hopLatencyNs").asLong());
        assertTrue("no utilisation reported yet", first.get("linkUtilization").isNull());
        assertTrue(first.get("queueCongested").asBoolean());
        assertEquals("INTERVAL", first.get("lastCause").asText());
        assertEquals(3, body.get("counters").get("applied").asLong());
        assertEquals(1, body.get("counters").get("stale").asLong());

        assertEquals(1, get("v1/int/ports?congested=true", 200).get("ports").size());
        assertEquals("of:0000000000000003",
                get("v1/int/ports?congested=false", 200).get("ports").get(0).get("switch").asText());
        assertEquals(1, get("v1/int/ports?device=of:0000000000000003", 200).get("ports").size());
        assertEquals(1, get("v1/int/ports?limit=1", 200).get("ports").size());
    }

    @Test
    public void onePort() throws Exception {
        assertEquals(900, get("v1/int/ports/of:0000000000000002/4", 200).get("maxQueueOccupancy").asLong());
        assertEquals("no INT state for of:0000000000000002/5",
                get("v1/int/ports/of:0000000000000002/5", 404).get("message").asText());
    }

    @Test
    public void badParametersAre400WithTheReason() throws Exception {
        assertEquals("limit: must be >= 0", get("v1/int/ports?limit=-1", 400).get("message").asText());
        assertEquals("device: not a device id (scheme:id): \"switch2\"",
                get("v1/int/ports?device=switch2", 400).get("message").asText());
        assertEquals("port: not a port number: \"x\"",
                get("v1/int/ports/of:0000000000000002/x", 400).get("message").asText());
        assertEquals("port: must be 0-4294967295, got 4294967296",
                get("v1/int/ports/of:0000000000000002/4294967296", 400).get("message").asText());
    }
}
