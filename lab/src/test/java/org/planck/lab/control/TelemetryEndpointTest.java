package org.planck.lab.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.PortCongestionNotice;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.lab.http.KeepAliveProbe;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The lab's telemetry endpoint: authentication, whole-batch validation with the app's codec,
 * and nothing reaching the controller from a rejected batch.
 */
public class TelemetryEndpointTest {
    static final String VALID = "{\"version\":1,\"collector\":\"c1\",\"seq\":1,\"sentUs\":1763718000123456,"
            + "\"events\":[{\"type\":\"PORT_CONGESTION\",\"switch\":\"of:0000000000000001\",\"port\":3,"
            + "\"state\":\"CONGESTED\",\"utilization\":0.93,\"loadBps\":930000000.0,\"capacityBps\":1000000000.0,"
            + "\"sampleUs\":1763718000120950,\"timeUs\":1763718000121010}]}";

    private final ObjectMapper mapper = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<TelemetryBatch> applied = new ArrayList<>();
    private final List<Long> receipts = new ArrayList<>();
    private TelemetryEndpoint endpoint;

    @Before
    public void start() throws Exception {
        endpoint = TelemetryEndpoint.start(new InetSocketAddress("127.0.0.1", 0), "planck", "secret");
        endpoint.attach((batch, receiptUs) -> {
            applied.add(batch);
            receipts.add(receiptUs);
            return new IngestResult(batch.events().size() - 1, 1, 0);
        });
    }

    @After
    public void stop() {
        endpoint.close();
    }

    private HttpResponse<String> post(String body, String user, String password, String contentType)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + endpoint.port() + TelemetryEndpoint.PATH))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        if (user != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    (user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    public void validBatchIsAppliedAndAnsweredWithCounts() throws Exception {
        long before = LabController.nowUs();
        HttpResponse<String> r = post(VALID, "planck", "secret", "application/json");
        assertEquals(200, r.statusCode());
        JsonNode json = mapper.readTree(r.body());
        assertEquals(0, json.get("accepted").asInt());
        assertEquals(1, json.get("unknownDevice").asInt());
        assertEquals(0, json.get("unknownPort").asInt());
        assertEquals(1, applied.size());
        PortCongestionNotice n = (PortCongestionNotice) applied.get(0).events().get(0);
        assertEquals(1763718000120950L, n.sampleUs());
        assertTrue(receipts.get(0) >= before);
        assertEquals(1, endpoint.batches());
    }

    /**
     * The work after a decision (the controller's rule batch to the fabric) runs in the thread
     * that took the batch, before the collector's answer: no hand-over to another thread, and
     * the answer acknowledges a batch whose moves are in the fabric. Not for a rejected batch.
     */
    @Test
    public void afterIngestRunsInTheIngestingThreadBeforeTheAnswer() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<String> ingestThread = new AtomicReference<>();
        AtomicReference<String> afterThread = new AtomicReference<>();
        endpoint.attach(new TelemetrySink() {
            @Override
            public IngestResult ingest(TelemetryBatch batch, long receiptUs) {
                ingestThread.set(Thread.currentThread().getName());
                return new IngestResult(1, 0, 0);
            }

            @Override
            public void afterIngest() {
                afterThread.set(Thread.currentThread().getName());
                ran.countDown();
            }
        });
        assertEquals(400, post("{not json", "planck", "secret", "application/json").statusCode());
        assertEquals(1, ran.getCount());
        HttpResponse<String> r = post(VALID, "planck", "secret", "application/json");
        assertEquals(200, r.statusCode());
        assertEquals(0, ran.getCount());
        assertEquals(ingestThread.get(), afterThread.get());
    }

    @Test
    public void missingOrWrongCredentialsAre401() throws Exception {
        assertEquals(401, post(VALID, null, null, "application/json").statusCode());
        assertEquals(401, post(VALID, "planck", "wrong", "application/json").statusCode());
        assertEquals(0, applied.size());
    }

    @Test
    public void malformedBatchesAre400WithReasonAndNothingApplied() throws Exception {
        String[] bad = {
            "{not json",
            VALID.replace("\"version\":1", "\"version\":4"),
            VALID.replace("\"state\":\"CONGESTED\"", "\"state\":\"HOT\""),
            VALID.replace("\"port\":3", "\"port\":-3"),
            VALID.replace("\"seq\":1,", ""),
            // One good event and one bad: the whole batch is refused.
            VALID.replace("]}", ",{\"type\":\"PORT_CONGESTION\",\"switch\":\"of:0000000000000001\"}]}"),
            "",
        };
        for (String body : bad) {
            HttpResponse<String> r = post(body, "planck", "secret", "application/json");
            assertEquals(body, 400, r.statusCode());
            JsonNode json = mapper.readTree(r.body());
            assertEquals(400, json.get("code").asInt());
            assertTrue(json.get("message").asText().length() > 0);
        }
        assertEquals(0, applied.size());
        assertEquals(bad.length, endpoint.rejected());
    }

    @Test
    public void wrongMethodAndContentTypeAreRefused() throws Exception {
        HttpResponse<String> get = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + endpoint.port() + TelemetryEndpoint.PATH))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        "planck:secret".getBytes(StandardCharsets.UTF_8))).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(405, get.statusCode());
        assertEquals(415, post(VALID, "planck", "secret", "text/plain").statusCode());
        assertEquals(0, applied.size());
    }

    @Test
    public void betweenRunsValidBatchesAreAcknowledgedWithNothingApplied() throws Exception {
        endpoint.attach(null);
        HttpResponse<String> r = post(VALID, "planck", "secret", "application/json");
        assertEquals(200, r.statusCode());
        assertEquals(0, mapper.readTree(r.body()).get("accepted").asInt());
        assertEquals(0, applied.size());
        assertEquals(1, endpoint.unavailable());
    }

    @Test
    public void answersAreNotHeldByDelayedAcks() throws Exception {
        // The JDK server writes headers and body separately: without TCP_NODELAY the body waits
        // for the client's delayed ACK of the headers, about 40 ms per batch.
        byte[] body = VALID.getBytes(StandardCharsets.UTF_8);
        String head = "POST " + TelemetryEndpoint.PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nAuthorization: Basic "
                + Base64.getEncoder().encodeToString("planck:secret".getBytes(StandardCharsets.UTF_8))
                + "\r\nContent-Length: " + body.length + "\r\n\r\n";
        byte[] request = (head + VALID).getBytes(StandardCharsets.UTF_8);
        double median = KeepAliveProbe.medianMs(endpoint.port(), request, 50);
        assertTrue("median answer " + median + " ms: a delayed-ACK stall (~40 ms)", median < 25);
        assertEquals(51, applied.size());
    }
}
