package org.planck.api.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.planck.api.ForwardingMap;
import org.planck.api.ForwardingMapCodec;

import java.io.IOException;

/**
 * Fuzz target for the forwarding-map decoder (what collectors and the lab do with a push):
 * any input is either rejected with IllegalArgumentException or decodes into a map that
 * encodes and decodes back to itself.
 *
 * <p>Run with Jazzer: {@code jazzer --cp=<test classpath> --target_class=org.planck.api.fuzz.ForwardingMapFuzzer}.</p>
 */
public final class ForwardingMapFuzzer {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ForwardingMapFuzzer() {
    }

    public static void fuzzerTestOneInput(FuzzedDataProvider data) {
        check(data.consumeRemainingAsString());
    }

    /**
     * Checks one input.
     *
     * @param text candidate JSON
     * @return true if it decoded, false if rejected
     */
    public static boolean check(String text) {
        JsonNode node;
        try {
            node = MAPPER.readTree(text);
        } catch (IOException e) {
            return false;
        }
        return check(node);
    }

    /**
     * Checks one JSON value.
     *
     * @param node candidate map
     * @return true if it decoded, false if rejected
     */
    public static boolean check(JsonNode node) {
        ForwardingMap map;
        try {
            map = ForwardingMapCodec.decode(node);
        } catch (IllegalArgumentException e) {
            return false;
        }
        ForwardingMap again = ForwardingMapCodec.decode(ForwardingMapCodec.encode(map, MAPPER));
        if (!again.equals(map)) {
            throw new AssertionError("round trip changed " + node + " into " + again);
        }
        return true;
    }
}
