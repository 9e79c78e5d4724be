package org.planck.app.admission.algo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads the switch model written by the switch benchmark ({@code loko/switch_bench.py}:
 * {@code serviceRateBytesPerSec}, {@code serviceLatencyMicros}, {@code perPacketOverheadBytes},
 * optionally {@code maxBacklogBytes}, {@code bestEffortRateBytesPerSec},
 * {@code bestEffortBurstBytes}). Fields the file lacks come from the given defaults.
 */
public final class SwitchModelJson {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private SwitchModelJson() {
    }

    /**
     * Parses a model.
     *
     * @param json     file content
     * @param defaults values for absent fields
     * @return the model
     * @throws IllegalArgumentException naming the bad field
     */
    public static SwitchModel parse(String json, SwitchModel defaults) {
        JsonNode n;
        try {
            n = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("switch model: malformed JSON: " + e.getOriginalMessage());
        }
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("switch model: expected a JSON object");
        }
        return new SwitchModel(
                field(n, "serviceRateBytesPerSec", defaults.serviceRateBytesPerSec(), true),
                field(n, "serviceLatencyMicros", defaults.serviceLatencyNanos() / 1000, true) * 1000,
                field(n, "perPacketOverheadBytes", defaults.perPacketOverheadBytes(), true),
                field(n, "maxBacklogBytes", defaults.maxBacklogBytes(), false),
                field(n, "bestEffortRateBytesPerSec", defaults.bestEffortRateBytesPerSec(), false),
                field(n, "bestEffortBurstBytes", defaults.bestEffortBurstBytes(), false));
    }

    private static long field(JsonNode n, String name, long dflt, boolean required) {
        JsonNode v = n.get(name);
        if (v == null || v.isNull()) {
            if (required) {
                throw new IllegalArgumentException("switch model: " + name + " missing");
            }
            return dflt;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
            throw new IllegalArgumentException("switch model: " + name + ": expected an integer >= 0, got " + v);
        }
        return v.asLong();
    }
}
