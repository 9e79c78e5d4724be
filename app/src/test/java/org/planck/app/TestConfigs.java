package org.planck.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Builds Planck configuration JSON for component tests.
 */
public final class TestConfigs {
    public static final ObjectMapper MAPPER = new ObjectMapper();

    private final ObjectNode root = MAPPER.createObjectNode();
    private ObjectNode collector;

    private TestConfigs() {
    }

    public static TestConfigs config() {
        return new TestConfigs();
    }

    public TestConfigs k(int k) {
        root.put("shadowPathsPerDestination", k);
        return this;
    }

    public TestConfigs threshold(double pct) {
        root.put("congestionThresholdPct", pct);
        return this;
    }

    public TestConfigs collector(String id, String address, int port) {
        ArrayNode list = root.has("collectors") ? (ArrayNode) root.get("collectors") : root.putArray("collectors");
        collector = list.addObject();
        collector.put("id", id).put("address", address).put("controlPort", port);
        collector.putArray("switches");
        return this;
    }

    public TestConfigs serve(String device, long mirrorPort, int vlan) {
        ((ArrayNode) collector.get("switches")).addObject().put("device", device).put("mirrorPort", mirrorPort)
                .put("rspanVlan", vlan);
        return this;
    }

    public TestConfigs serve(String device, long mirrorPort, int vlan, String bridge) {
        ((ArrayNode) collector.get("switches")).addObject().put("device", device).put("mirrorPort", mirrorPort)
                .put("rspanVlan", vlan).put("bridge", bridge);
        return this;
    }

    public ObjectNode json() {
        return root.deepCopy();
    }
}
