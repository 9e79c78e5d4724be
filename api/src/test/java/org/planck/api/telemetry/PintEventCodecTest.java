package org.planck.api.telemetry;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableList;
import com.google.common.io.Resources;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * telemetry-events-v3: PINT_PATH and PINT_HOP_LATENCY decode into their own lists, the
 * documented example decodes field for field, v1/v2 batches stay as they were, and every
 * malformed PINT field is rejected with its reason.
 */
public class PintEventCodecTest {
    private static final FlowKey FLOW = FlowKey.of(IpAddress.valueOf("10.0.0.1"), IpAddress.valueOf("10.0.0.9"),
            6, 41234, 5201);
    private static final DeviceId S1 = DeviceId.deviceId("of:0000000000000001");
    private static final DeviceId S2 = DeviceId.deviceId("of:0000000000000002");
    private static final DeviceId S3 = DeviceId.deviceId("of:0000000000000003");

    private final ObjectMapper mapper = new ObjectMapper();
    private final TelemetryBatchCodec codec = new TelemetryBatchCodec();
    private String example;

    @Before
    public void setUp() throws IOException {
        example = Resources.toString(Resources.getResource(getClass(), "example-batch-v3.json"),
                StandardCharsets.UTF_8);
    }

    @Test
    public void decodesTheDocumentedExample() throws Exception {
        TelemetryBatch b = codec.decode(example.getBytes(StandardCharsets.UTF_8));
        assertEquals(19, b.seq());
        assertTrue(b.events().isEmpty());
        assertTrue(b.intSignals().isEmpty());
        assertEquals(ImmutableList.of(new PintPathEvent(FLOW, ImmutableList.of(S1, S3, S2), 17,
                PintPathEvent.Cause.NEW_KEY, 1763718000220001L)), b.pintPaths());
        assertEquals(ImmutableList.of(new PintHopLatency(FLOW, 2, S3, 128, 1840, 9120, 1763718000220001L)),
                b.pintLatencies());
        assertEquals(3, b.version());
    }

    @Test
    public void roundTripsAndPicksTheLowestVersion() throws Exception {
        TelemetryBatch b = codec.decode(example.getBytes(StandardCharsets.UTF_8));
        assertEquals(b, codec.decode(codec.encodeBytes(b)));
        assertEquals(3, codec.encode(b).get("version").asInt());
        TelemetryBatch withoutSwitch = new TelemetryBatch("c1", 1, 2, ImmutableList.of(), ImmutableList.of(),
                ImmutableList.of(), ImmutableList.of(new PintHopLatency(FLOW, 1, null, 64, 10, 20, 3)));
        TelemetryBatch back = codec.decode(codec.encodeBytes(withoutSwitch));
        assertFalse(back.pintLatencies().get(0).device().isPresent());
        assertFalse(codec.encode(withoutSwitch).get("events").get(0).has("switch"));
        assertEquals(1, codec.encode(new TelemetryBatch("c1", 1, 2, ImmutableList.of())).get("version").asInt());
    }

    @Test
    public void versionThreeAlsoCarriesEarlierEvents() throws Exception {
        ObjectNode root = (ObjectNode) mapper.readTree(example);
        ((ArrayNode) root.get("events")).addObject().put("type", "PORT_CONGESTION").put("switch", "of:0000000000000002")
                .put("port", 4).put("state", "CONGESTED").put("utilization", 0.9).put("loadBps", 9e8)
                .put("capacityBps", 1e9).put("sampleUs", 5).put("timeUs", 6);
        TelemetryBatch b = codec.decode(mapper.writeValueAsBytes(root));
        assertEquals(1, b.events().size());
        assertEquals(1, b.pintPaths().size());
    }

    @Test
    public void rejectsMalformedPintEvents() {
        assertRejected(root -> root.put("version", 2),
                "events: PINT_PATH and PINT_HOP_LATENCY events need version 3");
        assertRejected(root -> path(root).remove("path"), "events[0].path: missing");
        assertRejected(root -> path(root).put("path", "of:1"), "events[0].path: expected an array");
        assertRejected(root -> path(root).putArray("path"), "events[0].path: expected 1..64 device ids, got 0");
        assertRejected(root -> {
            ArrayNode p = path(root).putArray("path");
            for (int i = 0; i < 65; i++) {
                p.add("of:" + i);
            }
        }, "events[0].path: expected 1..64 device ids, got 65");
        assertRejected(root -> path(root).putArray("path").add("of:1").add(7), "events[0].path[1]: expected a string");
        assertRejected(root -> path(root).putArray("path").add("of:1").add(""), "events[0].path[1]: must not be empty");
        assertRejected(root -> path(root).put("packets", 0), "events[0].packets: expected an integer >= 1");
        assertRejected(root -> path(root).put("cause", "INTERVAL"), "events[0].cause: unknown cause \"INTERVAL\"");
        assertRejected(root -> path(root).remove("timeUs"), "events[0].timeUs: missing");
        assertRejected(root -> path(root).remove("flow"), "events[0].flow: missing");
        assertRejected(root -> ((ObjectNode) path(root).get("flow")).put("sport", 70000),
                "events[0].flow.sport: expected an integer in 0..65535");
        assertRejected(root -> latency(root).put("hop", 0), "events[1].hop: expected an integer in 1..64");
        assertRejected(root -> latency(root).put("hop", 65), "events[1].hop: expected an integer in 1..64");
        assertRejected(root -> latency(root).put("samples", 0), "events[1].samples: expected an integer >= 1");
        assertRejected(root -> latency(root).put("p50Ns", -1), "events[1].p50Ns: expected an integer >= 0");
        assertRejected(root -> latency(root).put("p99Ns", 1.5), "events[1].p99Ns: expected an integer >= 0");
        assertRejected(root -> latency(root).put("switch", 3), "events[1].switch: expected a string");
        assertRejected(root -> latency(root).put("type", "PINT_HOP"), "events[1].type: unknown event type");
    }

    private static ObjectNode path(ObjectNode root) {
        return (ObjectNode) root.get("events").get(0);
    }

    private static ObjectNode latency(ObjectNode root) {
        return (ObjectNode) root.get("events").get(1);
    }

    private void assertRejected(Consumer<ObjectNode> mutation, String reason) {
        try {
            ObjectNode root = (ObjectNode) mapper.readTree(example);
            mutation.accept(root);
            TelemetryBatch b = codec.decode(mapper.writeValueAsBytes(root));
            fail("accepted a batch that should fail with \"" + reason + "\": " + b);
        } catch (MalformedBatchException e) {
            assertThat(e.getMessage(), startsWith(reason));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
