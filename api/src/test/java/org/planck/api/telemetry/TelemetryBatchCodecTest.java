package org.planck.api.telemetry;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.io.Resources;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.fail;

/**
 * Decoding of telemetry-events-v1: the documented example, and one test per way a batch can be malformed.
 */
public class TelemetryBatchCodecTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private final TelemetryBatchCodec codec = new TelemetryBatchCodec();
    private String example;

    @Before
    public void setUp() throws IOException {
        example = Resources.toString(Resources.getResource(getClass(), "example-batch.json"), StandardCharsets.UTF_8);
    }

    @Test
    public void decodesTheDocumentedExample() throws Exception {
        TelemetryBatch b = codec.decode(example.getBytes(StandardCharsets.UTF_8));
        assertEquals("c1", b.collector());
        assertEquals(17, b.seq());
        assertEquals(1763718000123456L, b.sentUs());
        assertEquals(2, b.events().size());
        FlowRateEvent f = (FlowRateEvent) b.events().get(0);
        assertEquals(FlowKey.of(IpAddress.valueOf("10.0.0.1"), IpAddress.valueOf("10.0.0.9"), 6, 41234, 5201),
                f.flow());
        assertEquals(ConnectPoint.deviceConnectPoint("of:0000000000000001/3"), f.port());
        assertEquals(MacAddress.valueOf("02:70:00:00:00:09"), f.dstMac());
        assertEquals(118000000.0, f.bytesPerSec(), 0);
        assertEquals(42, f.samples());
        assertEquals(1763718000100000L, f.firstSampleUs());
        assertEquals(1763718000121000L, f.lastSampleUs());
        assertEquals(RateEstimator.TCP_SEQ, f.estimator());
        PortCongestionNotice c = (PortCongestionNotice) b.events().get(1);
        assertEquals(ConnectPoint.deviceConnectPoint("of:0000000000000001/3"), c.port());
        assertEquals(CongestionState.CONGESTED, c.state());
        assertEquals(0.93, c.utilization(), 0);
        assertEquals(930000000.0, c.loadBps(), 0);
        assertEquals(1e9, c.capacityBps(), 0);
        assertEquals(1763718000120950L, c.sampleUs());
        assertEquals(1763718000121010L, c.timeUs());
    }

    @Test
    public void encodeDecodeRoundTrips() throws Exception {
        TelemetryBatch b = codec.decode(example.getBytes(StandardCharsets.UTF_8));
        assertEquals(b, codec.decode(codec.encodeBytes(b)));
    }

    @Test
    public void acceptsIpv6AndEmptyEventsAndUnknownFields() throws Exception {
        TelemetryBatch b = decodeMutated(root -> {
            flow(root).put("src", "2001:db8::1").put("dst", "2001:db8::9");
            root.put("futureField", "ignored");
        });
        assertEquals(IpAddress.Version.INET6, ((FlowRateEvent) b.events().get(0)).flow().src().version());
        assertEquals(0, decodeMutated(root -> root.putArray("events")).events().size());
    }

    @Test
    public void carriesTheOptionalLowConfidenceFlag() throws Exception {
        // Absent (as in every batch before the flag): false.
        assertFalse(((FlowRateEvent) codec.decode(example.getBytes(StandardCharsets.UTF_8)).events().get(0))
                .lowConfidence());
        TelemetryBatch low = decodeMutated(root -> event(root, 0).put("estimator", "SAMPLED_BYTES")
                .put("lowConfidence", true));
        FlowRateEvent f = (FlowRateEvent) low.events().get(0);
        assertTrue(f.lowConfidence());
        assertEquals(RateEstimator.SAMPLED_BYTES, f.estimator());
        assertEquals(low, codec.decode(codec.encodeBytes(low)));
        assertTrue(mapper.readTree(codec.encodeBytes(low)).get("events").get(0).get("lowConfidence").asBoolean());
        assertFalse(((FlowRateEvent) decodeMutated(root -> event(root, 0).put("lowConfidence", false))
                .events().get(0)).lowConfidence());
        // A flow-rate event without the flag is written without it, as v1 readers know it.
        assertNull(mapper.readTree(codec.encodeBytes(codec.decode(example.getBytes(StandardCharsets.UTF_8))))
                .get("events").get(0).get("lowConfidence"));
        assertMutationRejected(root -> event(root, 0).put("lowConfidence", "yes"),
                "events[0].lowConfidence: must be true or false");
        assertMutationRejected(root -> event(root, 0).put("lowConfidence", 1),
                "events[0].lowConfidence: must be true or false");
    }

    @Test
    public void acceptsIntegerWhereNumberExpected() throws Exception {
        TelemetryBatch b = decodeMutated(root -> event(root, 0).put("bytesPerSec", 1000));
        assertEquals(1000.0, ((FlowRateEvent) b.events().get(0)).bytesPerSec(), 0);
    }

    @Test
    public void rejectsBadJson() {
        assertRejected("{\"version\":1,", "malformed JSON");
        assertRejected("", "empty body");
        assertRejected("[1,2]", "batch must be a JSON object");
        assertRejected("{\"version\":1} {}", "malformed JSON");
        assertRejected("{\"version\":1,\"version\":1,\"collector\":\"c\",\"seq\":0,\"sentUs\":0,\"events\":[]}",
                "malformed JSON: Duplicate field 'version'");
    }

    @Test
    public void rejectsWrongVersion() {
        assertMutationRejected(root -> root.put("version", 4), "version: unsupported 4");
        assertMutationRejected(root -> root.put("version", "1"), "version: unsupported \"1\"");
        assertMutationRejected(root -> root.put("version", 1.0), "version: unsupported 1.0");
        assertMutationRejected(root -> root.remove("version"), "version: missing");
    }

    @Test
    public void rejectsBadBatchFields() {
        assertMutationRejected(root -> root.remove("collector"), "collector: missing");
        assertMutationRejected(root -> root.put("collector", 7), "collector: expected a string");
        assertMutationRejected(root -> root.put("collector", ""), "collector: must not be empty");
        assertMutationRejected(root -> root.put("seq", -1), "seq: expected an integer >= 0");
        assertMutationRejected(root -> root.put("seq", 1.5), "seq: expected an integer >= 0");
        assertMutationRejected(root -> root.remove("sentUs"), "sentUs: missing");
        assertMutationRejected(root -> root.put("sentUs", "now"), "sentUs: expected an integer");
        assertMutationRejected(root -> root.remove("events"), "events: missing");
        assertMutationRejected(root -> root.put("events", "x"), "events: expected an array");
        assertMutationRejected(root -> root.withArray("events").add(3), "events[2]: expected an object");
    }

    @Test
    public void rejectsMoreThanTenThousandEvents() throws Exception {
        ObjectNode root = (ObjectNode) mapper.readTree(example);
        ArrayNode events = root.withArray("events");
        ObjectNode first = (ObjectNode) events.get(0);
        events.removeAll();
        for (int i = 0; i < TelemetryBatch.MAX_EVENTS; i++) {
            events.add(first.deepCopy());
        }
        assertEquals(TelemetryBatch.MAX_EVENTS, codec.decode(mapper.writeValueAsBytes(root)).events().size());
        events.add(first.deepCopy());
        assertRejected(mapper.writeValueAsString(root), "events: 10001 events, at most 10000 per batch");
    }

    @Test
    public void rejectsOversizedBody() {
        byte[] big = new byte[TelemetryBatchCodec.MAX_BODY_BYTES + 10];
        java.util.Arrays.fill(big, (byte) ' ');
        try {
            codec.decode(new ByteArrayInputStream(big));
            fail("oversized body accepted");
        } catch (MalformedBatchException e) {
            assertThat(e.getMessage(), startsWith("body larger than"));
        }
    }

    @Test
    public void rejectsBadFlowRateFields() {
        assertMutationRejected(root -> event(root, 0).put("type", "FLOW"), "events[0].type: unknown event type \"FLOW\"");
        assertMutationRejected(root -> event(root, 0).remove("type"), "events[0].type: missing");
        assertMutationRejected(root -> event(root, 0).remove("flow"), "events[0].flow: missing");
        assertMutationRejected(root -> event(root, 0).put("flow", "10.0.0.1"), "events[0].flow: expected an object");
        assertMutationRejected(root -> flow(root).put("src", "host-a"), "events[0].flow.src: not an IP address");
        assertMutationRejected(root -> flow(root).put("dst", "10.0.0.256"), "events[0].flow.dst: not an IP address");
        assertMutationRejected(root -> flow(root).put("dst", "2001:db8::9"),
                "events[0].flow.dst: IP version differs from src");
        assertMutationRejected(root -> flow(root).put("proto", 256), "events[0].flow.proto: expected an integer in 0..255");
        assertMutationRejected(root -> flow(root).put("sport", -1), "events[0].flow.sport: expected an integer in 0..65535");
        assertMutationRejected(root -> flow(root).put("dport", 65536), "events[0].flow.dport: expected an integer in 0..65535");
        assertMutationRejected(root -> flow(root).remove("dport"), "events[0].flow.dport: missing");
        assertMutationRejected(root -> event(root, 0).put("switch", ""), "events[0].switch: must not be empty");
        assertMutationRejected(root -> event(root, 0).put("switch", "of: 1"), "events[0].switch: not a device id");
        assertMutationRejected(root -> event(root, 0).put("switch", 1), "events[0].switch: expected a string");
        assertMutationRejected(root -> event(root, 0).put("port", "3"), "events[0].port: expected an integer in 0..4294967295");
        assertMutationRejected(root -> event(root, 0).put("port", 4294967296L), "events[0].port: expected an integer");
        assertMutationRejected(root -> event(root, 0).put("dstMac", "02:70:00:00:00"), "events[0].dstMac: not a MAC address");
        assertMutationRejected(root -> event(root, 0).put("bytesPerSec", -1.0),
                "events[0].bytesPerSec: expected a finite number >= 0");
        assertMutationRejected(root -> event(root, 0).put("bytesPerSec", 2e15),
                "events[0].bytesPerSec: expected a finite number >= 0 and <= 1000000000000000");
        assertMutationRejected(root -> event(root, 0).put("bytesPerSec", "fast"), "events[0].bytesPerSec: expected a number");
        assertMutationRejected(root -> event(root, 0).put("samples", 0), "events[0].samples: expected an integer >= 1");
        assertMutationRejected(root -> event(root, 0).put("lastSampleUs", 1763718000099999L),
                "events[0].lastSampleUs: earlier than firstSampleUs");
        assertMutationRejected(root -> event(root, 0).remove("firstSampleUs"), "events[0].firstSampleUs: missing");
        assertMutationRejected(root -> event(root, 0).put("estimator", "GUESS"), "events[0].estimator: unknown estimator");
    }

    @Test
    public void rejectsBadCongestionFields() {
        assertMutationRejected(root -> event(root, 1).put("state", "HOT"), "events[1].state: unknown state \"HOT\"");
        assertMutationRejected(root -> event(root, 1).put("utilization", -0.1),
                "events[1].utilization: expected a finite number >= 0");
        assertMutationRejected(root -> event(root, 1).put("loadBps", -5), "events[1].loadBps: expected a finite number >= 0");
        assertMutationRejected(root -> event(root, 1).put("capacityBps", 0), "events[1].capacityBps: expected a finite number > 0");
        assertMutationRejected(root -> event(root, 1).remove("timeUs"), "events[1].timeUs: missing");
        assertMutationRejected(root -> event(root, 1).put("sampleUs", true), "events[1].sampleUs: expected an integer");
        assertMutationRejected(root -> event(root, 1).remove("port"), "events[1].port: missing");
    }

    @Test
    public void rejectsNumberOverflowingToInfinity() {
        assertRejected(example.replace("0.93", "1e400"), "events[1].utilization: expected a finite number");
    }

    private TelemetryBatch decodeMutated(Consumer<ObjectNode> mutation) throws Exception {
        ObjectNode root = (ObjectNode) mapper.readTree(example);
        mutation.accept(root);
        return codec.decode(mapper.writeValueAsBytes(root));
    }

    private static ObjectNode event(ObjectNode root, int i) {
        return (ObjectNode) root.withArray("events").get(i);
    }

    private static ObjectNode flow(ObjectNode root) {
        return (ObjectNode) event(root, 0).get("flow");
    }

    private void assertMutationRejected(Consumer<ObjectNode> mutation, String reason) {
        try {
            TelemetryBatch b = decodeMutated(mutation);
            fail("accepted a batch that should fail with \"" + reason + "\": " + b);
        } catch (MalformedBatchException e) {
            assertThat(e.getMessage(), startsWith(reason));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private void assertRejected(String body, String reason) {
        try {
            codec.decode(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
            fail("accepted a batch that should fail with \"" + reason + "\"");
        } catch (MalformedBatchException e) {
            assertThat(e.getMessage(), containsString(reason));
            assertThat(e.getMessage().isEmpty(), is(false));
        }
    }
}
