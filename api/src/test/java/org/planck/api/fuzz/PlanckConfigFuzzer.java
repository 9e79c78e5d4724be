package org.planck.api.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.planck.api.config.CollectorConfig;
import org.planck.api.config.InvalidConfigException;
import org.planck.api.config.PlanckSettings;
import org.planck.api.config.ServedSwitch;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

/**
 * Fuzz target for the configuration parser, which takes REST bodies and netcfg JSON: any
 * input either parses into settings that satisfy every documented constraint, or is rejected
 * with {@link InvalidConfigException}; nothing else may escape.
 *
 * <p>Run with Jazzer: {@code jazzer --cp=<test classpath> --target_class=org.planck.api.fuzz.PlanckConfigFuzzer}.</p>
 */
public final class PlanckConfigFuzzer {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private PlanckConfigFuzzer() {
    }

    public static void fuzzerTestOneInput(FuzzedDataProvider data) {
        check(data.consumeRemainingAsString());
    }

    /**
     * Checks one input.
     *
     * @param text candidate JSON
     * @return true if it parsed into valid settings, false if rejected
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
     * @param node candidate configuration
     * @return true if it parsed into valid settings, false if rejected
     */
    public static boolean check(JsonNode node) {
        PlanckSettings s;
        try {
            s = PlanckSettings.parse(node);
        } catch (InvalidConfigException e) {
            if (e.getMessage() == null || e.getMessage().isEmpty()) {
                throw new AssertionError("rejection without a reason for " + node);
            }
            return false;
        }
        require(s.congestionThresholdPct() > 0 && s.congestionThresholdPct() <= 100, "threshold", node);
        require(s.hysteresisPct() >= 0 && s.hysteresisPct() < s.congestionThresholdPct(), "hysteresis", node);
        require(s.shadowPathsPerDestination() >= 1 && s.shadowPathsPerDestination() <= 64, "k", node);
        require(s.rerouteDampingMs() >= 0 && s.rerouteDampingMs() <= 60_000, "damping", node);
        require(s.flowReportIntervalMs() >= 1 && s.flowReportIntervalMs() <= 1000, "report interval", node);
        Set<String> ids = new HashSet<>();
        Set<Object> devices = new HashSet<>();
        for (CollectorConfig c : s.collectors()) {
            require(ids.add(c.id()), "unique collector ids", node);
            require(c.controlPort() >= 1 && c.controlPort() <= 65535, "control port", node);
            Set<Object> vlans = new HashSet<>();
            for (ServedSwitch sw : c.switches()) {
                require(devices.add(sw.deviceId()), "one collector per device", node);
                require(vlans.add(sw.rspanVlan()), "unique VLAN per collector", node);
                require(sw.rspanVlan().toShort() >= 1 && sw.rspanVlan().toShort() <= 4094, "VLAN range", node);
                require(sw.mirrorPort().toLong() >= 1 && sw.mirrorPort().toLong() < 0xffffff00L, "mirror port", node);
            }
        }
        // What was accepted must be accepted again, identically, from its own JSON.
        require(PlanckSettings.parse(s.json()).equals(s), "round trip", node);
        return true;
    }

    private static void require(boolean ok, String what, JsonNode input) {
        if (!ok) {
            throw new AssertionError(what + " violated by accepted config " + input);
        }
    }
}
