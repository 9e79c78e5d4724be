package org.planck.lab.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.Test;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The validation's admission decisions, against hand-computed bounds: one switch of R = 1 MB/s,
 * T = 1 ms, no per-packet cost; a 1,500 B MTU on 10 Gb/s ports adds 1,200 ns per hop. A flow of
 * 1,000 B burst adds 1 ms to the shared server's bound.
 */
public class AdmissionPlanTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static String request(String scope, long beBurst, int flows, long rate, long burst, long deadline) {
        StringBuilder f = new StringBuilder();
        for (int i = 0; i < flows; i++) {
            f.append(i == 0 ? "" : ",").append(String.format(
                    "{\"id\":\"f%d\",\"outPort\":%d,\"rateBytesPerSec\":%d,\"burstBytes\":%d,"
                            + "\"minPacketBytes\":100,\"maxPacketBytes\":100,\"deadlineNanos\":%d}",
                    i, 2 + i % 2, rate, burst, deadline));
        }
        return String.format("{\"model\":{\"serviceRateBytesPerSec\":1000000,\"serviceLatencyMicros\":1000,"
                + "\"perPacketOverheadBytes\":0,\"maxBacklogBytes\":100000000,\"bestEffortRateBytesPerSec\":0,"
                + "\"bestEffortBurstBytes\":%d},\"scope\":\"%s\",\"mtuBytes\":1500,\"portCapacityBps\":10000000000,"
                + "\"flows\":[%s]}", beBurst, scope, f);
    }

    private static JsonNode decide(String req) throws Exception {
        return MAPPER.readTree(AdmissionPlan.decide(req));
    }

    @Test
    public void sharedSwitchStopsAtTheDeadlineWherePerPortAdmitsAll() throws Exception {
        // Shared: k flows -> 1 ms + k ms + 1,200 ns; the 4th would make it 5,001,200 > 5 ms.
        JsonNode shared = decide(request("SHARED_SWITCH", 0, 6, 200_000, 1000, 5_000_000));
        JsonNode d = shared.get("decisions");
        for (int i = 0; i < 6; i++) {
            assertEquals("flow " + i, i < 3, d.get(i).get("admitted").asBoolean());
        }
        assertEquals(2_001_200, d.get(0).get("boundNanos").asLong());
        assertEquals(4_001_200, d.get(2).get("boundNanos").asLong());
        assertTrue(d.get(3).get("reason").asText(), d.get(3).get("reason").asText().contains("deadline"));
        assertEquals(3, shared.get("boundsNanos").size());
        assertEquals(4_001_200, shared.get("boundsNanos").get("f0").asLong());
        assertEquals(1_001_200, shared.get("fixedLatencyNanos").asLong());
        // Per port: three flows on each of ports 2 and 3, each port 1 ms + 3 ms + 1,200 ns.
        JsonNode perPort = decide(request("PER_PORT", 0, 6, 200_000, 1000, 5_000_000));
        for (JsonNode x : perPort.get("decisions")) {
            assertTrue(x.toString(), x.get("admitted").asBoolean());
        }
        assertEquals(4_001_200, perPort.get("boundsNanos").get("f5").asLong());
    }

    @Test
    public void bestEffortBurstCountsAndRateCapsTheSharedServer() throws Exception {
        // Best-effort burst of 1,000 work bytes: one flow's bound 1 ms + 2 ms + 1,200 ns.
        JsonNode be = decide(request("SHARED_SWITCH", 1000, 1, 200_000, 1000, 5_000_000));
        assertEquals(3_001_200, be.get("decisions").get(0).get("boundNanos").asLong());
        // 400 kB/s each: the third would load the server at 1.2 MB/s > R.
        JsonNode rate = decide(request("SHARED_SWITCH", 0, 3, 400_000, 100, 1_000_000_000));
        assertTrue(rate.get("decisions").get(1).get("admitted").asBoolean());
        assertFalse(rate.get("decisions").get(2).get("admitted").asBoolean());
        assertTrue(rate.get("decisions").get(2).get("reason").asText().contains("over capacity"));
    }

    @Test
    public void badRequestsSayWhy() {
        String good = request("SHARED_SWITCH", 0, 1, 200_000, 1000, 5_000_000);
        expectError(good.replace("\"maxBacklogBytes\":100000000,", ""), "maxBacklogBytes missing");
        expectError(good.replace("\"rateBytesPerSec\":200000", "\"rateBytesPerSec\":-5"), "rateBytesPerSec");
        expectError(good.replace("SHARED_SWITCH", "BOTH"), "scope");
        expectError("[1]", "expected a JSON object");
        expectError(request("SHARED_SWITCH", 0, 1, 200_000, 10, 5_000_000), "burst must hold");
    }

    private static void expectError(String req, String what) {
        try {
            AdmissionPlan.decide(req);
            fail("accepted: " + req);
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().contains(what));
        }
    }
}
