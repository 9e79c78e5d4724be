package org.planck.app.admission.algo;

import org.junit.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

public class SwitchModelJsonTest {
    private static final SwitchModel DEFAULTS = new SwitchModel(50_000_000, 100_000, 300, 2_000_000, 1000, 1500);

    @Test
    public void readsTheBenchmarkOutputAndKeepsDefaultsForTheRest() {
        SwitchModel m = SwitchModelJson.parse("{\"serviceRateBytesPerSec\": 4596477, \"serviceLatencyMicros\": 88146,"
                + " \"perPacketOverheadBytes\": 415, \"maxBurstPackets\": 12, \"margin\": 0.2}", DEFAULTS);
        assertEquals(new SwitchModel(4_596_477, 88_146_000, 415, 2_000_000, 1000, 1500), m);
    }

    @Test
    public void readsTheCommittedModel() throws Exception {
        Path p = Path.of("..", "docs", "results", "loko", "switch-model.json");
        SwitchModel m = SwitchModelJson.parse(Files.readString(p), DEFAULTS);
        assertTrue(m.serviceRateBytesPerSec() > 0);
        assertTrue(m.serviceLatencyNanos() > 0);
    }

    @Test
    public void badModelsNameTheField() {
        expect("{\"serviceRateBytesPerSec\": -1, \"serviceLatencyMicros\": 1, \"perPacketOverheadBytes\": 0}",
                "serviceRateBytesPerSec: expected an integer >= 0");
        expect("{\"serviceRateBytesPerSec\": 1000, \"perPacketOverheadBytes\": 0}", "serviceLatencyMicros missing");
        expect("{\"serviceRateBytesPerSec\": 1.5, \"serviceLatencyMicros\": 1, \"perPacketOverheadBytes\": 0}",
                "serviceRateBytesPerSec");
        expect("[1]", "expected a JSON object");
        expect("{", "malformed JSON");
        // Parsed but not a valid model: the model's own check speaks.
        expect("{\"serviceRateBytesPerSec\": 0, \"serviceLatencyMicros\": 1, \"perPacketOverheadBytes\": 0}",
                "service rate must be > 0");
    }

    private static void expect(String json, String message) {
        try {
            SwitchModelJson.parse(json, DEFAULTS);
            fail("accepted " + json);
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().contains(message));
        }
    }
}
