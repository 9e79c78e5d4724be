package org.planck.lab.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.admission.GuaranteeHop;
import org.planck.app.admission.algo.AdmissionPlanner;
import org.planck.app.admission.algo.AdmissionVerdict;
import org.planck.app.admission.algo.FlowDemand;
import org.planck.app.admission.algo.GuaranteePath;
import org.planck.app.admission.algo.SwitchModel;
import org.planck.app.admission.algo.SwitchModelJson;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Admits flows through one switch in request order with the app's {@link AdmissionPlanner}, as
 * the admission component would one request at a time: a rejected flow is skipped and the next
 * is tried. The answer gives each decision (bound or reason) and every admitted flow's final bound.
 *
 * <p>Request (JSON): {@code model} (a switch-model.json object, with {@code maxBacklogBytes},
 * {@code bestEffortRateBytesPerSec}, {@code bestEffortBurstBytes}), {@code scope}
 * (SHARED_SWITCH, SHARED_SWITCH_ANY_ORDER or PER_PORT), {@code mtuBytes}, {@code portCapacityBps}, and {@code flows}: each
 * {@code id}, {@code outPort}, {@code rateBytesPerSec}, {@code burstBytes}, {@code minPacketBytes},
 * {@code maxPacketBytes}, {@code deadlineNanos}.</p>
 */
public final class AdmissionPlan {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final DeviceId SWITCH = DeviceId.deviceId("of:0000000000000001");

    private AdmissionPlan() {
    }

    /**
     * Decides a request.
     *
     * @param requestJson the request
     * @return the answer, JSON
     * @throws IllegalArgumentException naming what is wrong with the request
     */
    public static String decide(String requestJson) {
        JsonNode req;
        try {
            req = MAPPER.readTree(requestJson);
        } catch (IOException e) {
            throw new IllegalArgumentException("request: malformed JSON: " + e.getMessage());
        }
        if (req == null || !req.isObject()) {
            throw new IllegalArgumentException("request: expected a JSON object");
        }
        JsonNode modelNode = required(req, "model");
        // Every field is required here: a validation must not run on a guessed default.
        for (String f : List.of("maxBacklogBytes", "bestEffortRateBytesPerSec", "bestEffortBurstBytes")) {
            required(modelNode, f);
        }
        SwitchModel model = SwitchModelJson.parse(modelNode.toString(), new SwitchModel(1, 0, 0, 1, 0, 0));
        AdmissionPlanner.Scope scope;
        try {
            scope = AdmissionPlanner.Scope.valueOf(required(req, "scope").asText());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("request: scope must be one of "
                    + java.util.Arrays.toString(AdmissionPlanner.Scope.values()));
        }
        int mtu = (int) positive(req, "mtuBytes");
        long capacity = positive(req, "portCapacityBps");
        AdmissionPlanner planner = new AdmissionPlanner(d -> model, scope, mtu);
        JsonNode flows = required(req, "flows");
        if (!flows.isArray()) {
            throw new IllegalArgumentException("request: flows must be an array");
        }
        ObjectNode out = MAPPER.createObjectNode();
        out.put("scope", scope.name());
        out.put("model", model.toString());
        ArrayNode decisions = out.putArray("decisions");
        Set<String> ids = new HashSet<>();
        for (JsonNode f : flows) {
            String id = required(f, "id").asText();
            if (!ids.add(id)) {
                throw new IllegalArgumentException("request: duplicate flow id " + id);
            }
            FlowDemand demand;
            try {
                demand = new FlowDemand(positive(f, "rateBytesPerSec"), positive(f, "burstBytes"),
                        (int) positive(f, "minPacketBytes"), (int) positive(f, "maxPacketBytes"),
                        positive(f, "deadlineNanos"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("request: flow " + id + ": " + e.getMessage());
            }
            GuaranteePath path = new GuaranteePath(0, List.of(
                    GuaranteeHop.of(SWITCH, PortNumber.portNumber(positive(f, "outPort")), capacity)));
            AdmissionVerdict v = planner.evaluate(demand, List.of(path));
            ObjectNode d = decisions.addObject();
            d.put("id", id);
            d.put("admitted", v.admitted());
            if (v.admitted()) {
                planner.admit(id, demand, path);
                d.put("boundNanos", v.boundNanos());
            } else {
                d.put("reason", v.reason().orElse(""));
            }
        }
        ObjectNode bounds = out.putObject("boundsNanos");
        for (Map.Entry<String, Long> e : planner.bounds().entrySet()) {
            bounds.put(e.getKey(), e.getValue());
        }
        out.put("fixedLatencyNanos", planner.fixedLatencyNanos(new GuaranteePath(0, List.of(
                GuaranteeHop.of(SWITCH, PortNumber.portNumber(1), capacity)))));
        return out.toPrettyString();
    }

    private static JsonNode required(JsonNode n, String name) {
        JsonNode v = n.get(name);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("request: " + name + " missing");
        }
        return v;
    }

    private static long positive(JsonNode n, String name) {
        JsonNode v = required(n, name);
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() <= 0) {
            throw new IllegalArgumentException("request: " + name + ": expected an integer > 0, got " + v);
        }
        return v.asLong();
    }
}
