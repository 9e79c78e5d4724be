package org.planck.web.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.osgi.TestServiceDirectory;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.rest.resources.ResourceTest;
import org.planck.api.admission.AdmissionCounters;
import org.planck.api.admission.AdmissionRejectedException;
import org.planck.api.admission.AdmissionService;
import org.planck.api.admission.Guarantee;
import org.planck.api.admission.GuaranteeHop;
import org.planck.api.admission.GuaranteeListener;
import org.planck.api.admission.GuaranteeRequest;
import org.planck.web.PlanckWebApplication;

import javax.ws.rs.client.Entity;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * REST v1/guarantees: admit, list, remove, and bad requests that change nothing.
 */
public class GuaranteeResourceTest extends ResourceTest {
    private static final String A = "10.0.0.2";
    private static final String B = "10.1.0.2";
    private final ObjectMapper mapper = new ObjectMapper();
    private FakeAdmission adm;

    public GuaranteeResourceTest() {
        super(ResourceConfig.forApplicationClass(PlanckWebApplication.class));
    }

    /**
     * Knows two hosts, a 256 us fixed path latency and room for 10 MB/s in total; records what
     * it admitted.
     */
    static final class FakeAdmission implements AdmissionService {
        final Map<String, Guarantee> admitted = new LinkedHashMap<>();
        final List<GuaranteeRequest> asked = new ArrayList<>();
        private int next = 1;

        @Override
        public Guarantee admit(GuaranteeRequest r) throws AdmissionRejectedException {
            asked.add(r);
            IpAddress src = r.flow().orElseThrow().src();
            IpAddress dst = r.flow().orElseThrow().dst();
            for (IpAddress ip : List.of(src, dst)) {
                if (!ip.toString().equals(A) && !ip.toString().equals(B)) {
                    throw new AdmissionRejectedException(AdmissionRejectedException.Reason.BAD_REQUEST,
                            "unknown host " + ip);
                }
            }
            if (r.deadlineNanos() < 256_000) {
                throw new AdmissionRejectedException(AdmissionRejectedException.Reason.BAD_REQUEST,
                        "deadline " + r.deadlineNanos() + " ns is below the fixed latency 256000 ns");
            }
            long used = admitted.values().stream().mapToLong(g -> g.request().rateBytesPerSec()).sum();
            if (used + r.rateBytesPerSec() > 10_000_000) {
                throw new AdmissionRejectedException(AdmissionRejectedException.Reason.NO_CAPACITY,
                        "switch of:1 over capacity");
            }
            String id = "g" + next++;
            Guarantee g = new Guarantee(id, r, MacAddress.valueOf("00:00:0a:00:00:02"),
                    MacAddress.valueOf("00:00:0a:01:00:02"), 1,
                    List.of(GuaranteeHop.of(DeviceId.deviceId("of:1"), PortNumber.portNumber(3), 10_000_000_000L)),
                    123_456, Guarantee.Policing.SENDER_SHAPED, null, 1_763_718_000_000L);
            admitted.put(id, g);
            return g;
        }

        @Override
        public boolean remove(String id) {
            return admitted.remove(id) != null;
        }

        @Override
        public List<Guarantee> guarantees() {
            return new ArrayList<>(admitted.values());
        }

        @Override
        public Optional<Guarantee> guarantee(String id) {
            return Optional.ofNullable(admitted.get(id));
        }

        @Override
        public Map<String, Long> currentBounds() {
            Map<String, Long> m = new LinkedHashMap<>();
            admitted.keySet().forEach(id -> m.put(id, 200_000L));
            return m;
        }

        @Override
        public AdmissionCounters counters() {
            return new AdmissionCounters(admitted.size(), 0, 0, 0, 17);
        }

        @Override
        public void addListener(GuaranteeListener listener) {
        }

        @Override
        public void removeListener(GuaranteeListener listener) {
        }
    }

    @Before
    public void setUpServices() {
        adm = new FakeAdmission();
        ServiceDirectory dir = new TestServiceDirectory().add(AdmissionService.class, adm);
        setServiceDirectory(dir);
    }

    private static String body(String src, long rate, long burst, long deadlineMicros) {
        return "{\"flow\":{\"src\":\"" + src + "\",\"dst\":\"" + B + "\",\"proto\":17,\"sport\":1000,\"dport\":5000},"
                + "\"rateBytesPerSec\":" + rate + ",\"burstBytes\":" + burst + ",\"maxPacketBytes\":1500,"
                + "\"deadlineMicros\":" + deadlineMicros + "}";
    }

    private Response post(String body, MediaType type) {
        return target("v1/guarantees").request(MediaType.APPLICATION_JSON_TYPE).post(Entity.entity(body, type));
    }

    private Response post(String body) {
        return post(body, MediaType.APPLICATION_JSON_TYPE);
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
    public void admitsListsAndRemoves() throws Exception {
        Response r = post(body(A, 1_000_000, 3000, 2000));
        assertEquals(201, r.getStatus());
        JsonNode g = json(r);
        assertEquals("g1", g.get("id").asText());
        assertEquals(123.456, g.get("boundMicros").asDouble(), 1e-9);
        assertEquals("SENDER_SHAPED", g.get("policing").asText());
        assertEquals("of:1/3", g.get("hops").get(0).asText());
        GuaranteeRequest asked = adm.asked.get(0);
        assertEquals(1_000_000, asked.rateBytesPerSec());
        assertEquals(2_000_000, asked.deadlineNanos());
        assertEquals(64, asked.minPacketBytes());

        JsonNode list = mapper.readTree(target("v1/guarantees").request().get(String.class));
        assertEquals(1, list.get("guarantees").size());
        assertEquals(200.0, list.get("guarantees").get(0).get("currentBoundMicros").asDouble(), 1e-9);
        assertEquals(1, list.get("counters").get("admitted").asInt());
        assertEquals("10.0.0.2", mapper.readTree(target("v1/guarantees/g1").request().get(String.class))
                .get("flow").get("src").asText());

        assertEquals(204, target("v1/guarantees/g1").request().delete().getStatus());
        assertTrue(adm.admitted.isEmpty());
        assertError(target("v1/guarantees/g1").request().delete(), 404, "unknown guarantee g1");
        assertError(target("v1/guarantees/g9").request().get(), 404, "unknown guarantee g9");
    }

    @Test
    public void badRequestsChangeNothing() throws Exception {
        assertError(post(body(A, -5, 3000, 2000)), 400, "rateBytesPerSec: expected an integer in 1..");
        assertError(post(body(A, 0, 3000, 2000)), 400, "rateBytesPerSec");
        assertError(post(body(A, 1000, 1000, 2000)), 400, "burst 1000 must hold at least one max-size packet");
        assertError(post(body(A, 1000, 3000, -1)), 400, "deadlineMicros");
        assertError(post(body("10.9.9.9", 1000, 3000, 2000)), 400, "unknown host 10.9.9.9");
        assertError(post(body(A, 1000, 3000, 255)), 400, "below the fixed latency");
        assertError(post(body(A, 1000, 3000, 2000).replace("\"proto\":17", "\"proto\":300")), 400, "flow.proto");
        assertError(post(body(A, 1000, 3000, 2000).replace("\"src\":\"10.0.0.2\"", "\"src\":\"host-a\"")), 400,
                "flow.src: not an IP address");
        assertError(post(body(A, 1000, 3000, 2000).replace("}", ",\"extra\":1}")), 400, "extra: unknown field");
        assertError(post("{\"hosts\":{\"src\":\"00:00:0a:00:00:02\",\"dst\":\"zz\"},\"rateBytesPerSec\":1,"
                + "\"burstBytes\":1500,\"maxPacketBytes\":1500,\"deadlineMicros\":1000}"), 400, "hosts.dst");
        assertError(post("{\"rateBytesPerSec\":1}"), 400, "exactly one of flow");
        assertError(post("{\"flow\":"), 400, "malformed JSON");
        assertError(post("[1]"), 400, "object");
        assertError(post("rate=1", MediaType.TEXT_PLAIN_TYPE), 415, "application/json");
        assertTrue(adm.admitted.isEmpty());
    }

    @Test
    public void noRoomIsAConflictWithTheReason() throws Exception {
        assertEquals(201, post(body(A, 9_000_000, 3000, 2000)).getStatus());
        assertError(post(body(A, 2_000_000, 3000, 2000)), 409, "switch of:1 over capacity");
        assertEquals(1, adm.admitted.size());
    }
}
