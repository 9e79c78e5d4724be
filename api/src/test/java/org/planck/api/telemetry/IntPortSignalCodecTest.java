package org.planck.api.telemetry;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.io.Resources;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.net.ConnectPoint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * telemetry-events-v2: INT_PORT events decode into {@link TelemetryBatch#intSignals()}, v1 events
 * in the same batch are unchanged, and every malformed INT_PORT field is rejected with its reason.
 */
public class IntPortSignalCodecTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private final TelemetryBatchCodec codec = new TelemetryBatchCodec();
    private String example;

    @Before
    public void setUp() throws IOException {
        example = Resources.toString(Resources.getResource(getClass(), "example-batch-v2.json"),
                StandardCharsets.UTF_8);
    }

    @Test
    public void decodesTheDocumentedExample() throws Exception {
        TelemetryBatch b = codec.decode(example.getBytes(StandardCharsets.UTF_8));
        assertEquals(18, b.seq());
        assertEquals(1, b.events().size());
        assertTrue(b.events().get(0) instanceof PortCongestionNotice);
        List<IntPortSignal> s = b.intSignals();
        assertEquals(2, s.size());
        ConnectPoint cp = ConnectPoint.deviceConnectPoint("of:0000000000000002/4");
        assertEquals(new IntPortSignal(cp, IntPortSignal.Signal.QUEUE_OCCUPANCY, 900, 0,
                IntPortSignal.Cause.INTERVAL, 1763718000220001L), s.get(0));
        assertEquals(new IntPortSignal(cp, IntPortSignal.Signal.HOP_LATENCY, 260, -1,
                IntPortSignal.Cause.NEW_KEY, 1763718000220001L), s.get(1));
    }

    @Test
    public void roundTripsAndKeepsVersionOneWithoutSignals() throws Exception {
        TelemetryBatch b = codec.decode(example.getBytes(StandardCharsets.UTF_8));
        assertEquals(b, codec.decode(codec.encodeBytes(b)));
        assertEquals(2, codec.encode(b).get("version").asInt());
        TelemetryBatch v1 = new TelemetryBatch("c1", 1, 2, b.events());
        assertEquals(1, codec.encode(v1).get("version").asInt());
    }

    @Test
    public void rejectsMalformedSignals() {
        assertRejected(root -> root.put("version", 1), "events: INT_PORT events need version 2");
        assertRejected(root -> event(root).put("signal", "JITTER"), "events[0].signal: unknown signal \"JITTER\"");
        assertRejected(root -> event(root).remove("signal"), "events[0].signal: missing");
        assertRejected(root -> event(root).remove("queue"), "events[0].queue: missing");
        assertRejected(root -> event(root).put("queue", 256), "events[0].queue: expected an integer in 0..255");
        assertRejected(root -> ((ObjectNode) root.get("events").get(1)).put("queue", 1),
                "events[1].queue: only QUEUE_OCCUPANCY signals name a queue");
        assertRejected(root -> event(root).put("value", -1), "events[0].value: expected an integer in 0..4294967295");
        assertRejected(root -> event(root).put("value", 4294967296L),
                "events[0].value: expected an integer in 0..4294967295");
        assertRejected(root -> event(root).put("cause", "BORED"), "events[0].cause: unknown cause \"BORED\"");
        assertRejected(root -> event(root).remove("reportUs"), "events[0].reportUs: missing");
        assertRejected(root -> event(root).put("switch", ""), "events[0].switch: must not be empty");
        assertRejected(root -> root.put("version", 4), "version: unsupported 4");
    }

    private static ObjectNode event(ObjectNode root) {
        return (ObjectNode) root.get("events").get(0);
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
