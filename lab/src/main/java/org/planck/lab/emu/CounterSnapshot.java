package org.planck.lab.emu;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.collect.ImmutableMap;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * One {@code GET /v1/counters} answer: transmitted bytes per switch port and matched bytes per
 * rule (by {@link RuleOp#ruleKey()}), at emulator time {@link #timeUs()}.
 */
public final class CounterSnapshot {
    private final long timeUs;
    private final Map<ConnectPoint, Long> txBytes;
    private final Map<String, Long> ruleBytes;

    /**
     * A snapshot.
     *
     * @param timeUs    emulator time
     * @param txBytes   transmitted bytes per port
     * @param ruleBytes matched bytes per rule key
     */
    public CounterSnapshot(long timeUs, Map<ConnectPoint, Long> txBytes, Map<String, Long> ruleBytes) {
        this.timeUs = timeUs;
        this.txBytes = ImmutableMap.copyOf(txBytes);
        this.ruleBytes = ImmutableMap.copyOf(ruleBytes);
    }

    /**
     * Reads a counters answer.
     *
     * @param json body
     * @return snapshot
     * @throws IllegalArgumentException if malformed
     */
    public static CounterSnapshot parse(JsonNode json) {
        if (json == null || json.path("version").asInt(-1) != 1 || !json.path("timeUs").isIntegralNumber()
                || !json.path("ports").isArray() || !json.path("rules").isArray()) {
            throw new IllegalArgumentException("counters must be a version-1 object with timeUs, ports and rules");
        }
        Map<ConnectPoint, Long> tx = new HashMap<>();
        for (JsonNode p : json.get("ports")) {
            if (!p.path("switch").isTextual() || !p.path("port").isIntegralNumber()
                    || !p.path("txBytes").isIntegralNumber()) {
                throw new IllegalArgumentException("port counters need switch, port and txBytes");
            }
            tx.put(new ConnectPoint(DeviceId.deviceId(p.get("switch").asText()),
                                    PortNumber.portNumber(p.get("port").asLong())), p.get("txBytes").asLong());
        }
        Map<String, Long> rules = new HashMap<>();
        for (JsonNode r : json.get("rules")) {
            if (!r.path("switch").isTextual() || !r.path("priority").isIntegralNumber()
                    || !r.path("match").isObject() || !r.path("bytes").isIntegralNumber()) {
                throw new IllegalArgumentException("rule counters need switch, priority, match and bytes");
            }
            Map<String, Object> match = new TreeMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = r.get("match").fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                match.put(e.getKey(), e.getValue().isNumber() ? (Object) e.getValue().asLong() : e.getValue().asText());
            }
            rules.put(RuleOp.ruleKey(r.get("switch").asText(), r.get("priority").asInt(), match),
                      r.get("bytes").asLong());
        }
        return new CounterSnapshot(json.get("timeUs").asLong(), tx, rules);
    }

    public long timeUs() {
        return timeUs;
    }

    public Map<ConnectPoint, Long> txBytes() {
        return txBytes;
    }

    public Map<String, Long> ruleBytes() {
        return ruleBytes;
    }
}
