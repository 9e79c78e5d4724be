package org.planck.lab.ovs;

import com.fasterxml.jackson.databind.JsonNode;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.FlowKey;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.RuleKind;
import org.planck.api.fabric.ShadowPathId;
import org.planck.lab.emu.RuleOp;
import org.planck.lab.emu.RuleTranslation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Reads a {@code POST /v1/rules} batch (docs/protocol/emulator-control-v1.md) back into the
 * routing plan's {@link PlannedRule}s, which the OpenFlow southbound translates into flow-mods as
 * ONOS's OpenFlow provider would. The plan is the one the lab controller computes from the same
 * topology with the same planner: its rules are found by their rule key; a per-flow rule (a TE
 * move) is rebuilt from its 5-tuple and the tree its shadow MAC names. A delete names a rule the
 * switch is meant to hold.
 */
final class OvsRuleOps {
    /** The batch, per switch, in the order the ops came. */
    static final class Batch {
        final Map<DeviceId, List<PlannedRule>> adds = new LinkedHashMap<>();
        final Map<DeviceId, List<PlannedRule>> removes = new LinkedHashMap<>();
        int ops;
    }

    private final Map<String, PlannedRule> planned = new HashMap<>();
    private final Map<MacAddress, ShadowPathId> trees = new HashMap<>();

    OvsRuleOps(RoutingPlan plan) {
        for (PlannedRule r : plan.rules()) {
            planned.put(RuleTranslation.add(r).ruleKey(), r);
            if (r.kind() == RuleKind.SHADOW_TRANSIT || r.kind() == RuleKind.SHADOW_DELIVERY) {
                r.path().ifPresent(p -> trees.put(r.ethDst(), p));
            }
        }
    }

    /**
     * Reads a batch; throws before anything is installed if any op is not understood.
     *
     * @param body   request body
     * @param wanted rules a switch is meant to hold now, by rule key
     * @return batch
     * @throws IllegalArgumentException naming the first op that cannot be applied
     */
    Batch read(JsonNode body, Function<DeviceId, Map<String, PlannedRule>> wanted) {
        if (body == null || body.path("version").asInt(-1) != 1 || !body.path("ops").isArray()) {
            throw new IllegalArgumentException("rules must be a version-1 object with an ops array");
        }
        Batch b = new Batch();
        int i = 0;
        for (JsonNode op : body.get("ops")) {
            String where = "ops[" + i++ + "]";
            String kind = op.path("op").asText("");
            if (!op.path("switch").isTextual() || !op.path("priority").isIntegralNumber() || !op.path("match").isObject()) {
                throw new IllegalArgumentException(where + ": switch, priority and match are required");
            }
            DeviceId device = DeviceId.deviceId(op.get("switch").asText());
            int priority = op.get("priority").asInt();
            Map<String, Object> match = new TreeMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = op.get("match").fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                match.put(e.getKey(), e.getValue().isNumber() ? (Object) e.getValue().asLong() : e.getValue().asText());
            }
            String key = RuleOp.ruleKey(device.toString(), priority, match);
            if (kind.equals("delete")) {
                PlannedRule r = wanted.apply(device).get(key);
                if (r == null) {
                    throw new IllegalArgumentException(where + ": delete of a rule " + device + " does not hold: " + key);
                }
                b.removes.computeIfAbsent(device, d -> new ArrayList<>()).add(r);
            } else if (kind.equals("add")) {
                JsonNode actions = op.path("actions");
                PlannedRule r = planned.get(key);
                if (r == null) {
                    r = perFlow(where, device, priority, match, actions);
                } else if (actions.path("output").asLong(-1) != r.outPort().toLong()
                        || !actions.path("setEthDst").asText("").equalsIgnoreCase(
                                r.setEthDst().map(MacAddress::toString).orElse(""))) {
                    throw new IllegalArgumentException(where + ": actions differ from the plan's rule " + r);
                }
                b.adds.computeIfAbsent(device, d -> new ArrayList<>()).add(r);
            } else {
                throw new IllegalArgumentException(where + ": op must be add or delete");
            }
            b.ops++;
        }
        return b;
    }

    private PlannedRule perFlow(String where, DeviceId device, int priority, Map<String, Object> m,
                                JsonNode actions) {
        if (priority != RuleKind.INGRESS_FLOW.priority() || !m.containsKey("ipSrc") || !m.containsKey("ethDst")) {
            throw new IllegalArgumentException(where + ": not a rule of the plan nor a per-flow placement: " + m);
        }
        try {
            MacAddress shadow = MacAddress.valueOf(actions.path("setEthDst").asText());
            ShadowPathId tree = trees.get(shadow);
            if (tree == null) {
                throw new IllegalArgumentException(where + ": setEthDst " + shadow + " is no tree's shadow MAC");
            }
            FlowKey flow = FlowKey.of(IpAddress.valueOf(String.valueOf(m.get("ipSrc"))),
                                      IpAddress.valueOf(String.valueOf(m.get("ipDst"))),
                                      ((Number) m.get("proto")).intValue(), ((Number) m.get("sport")).intValue(),
                                      ((Number) m.get("dport")).intValue());
            long out = actions.path("output").asLong(-1);
            if (out <= 0) {
                throw new IllegalArgumentException(where + ": output must be a positive port");
            }
            return PlannedRule.ingressFlow(device, flow, MacAddress.valueOf(String.valueOf(m.get("ethDst"))), tree,
                                           shadow, PortNumber.portNumber(out));
        } catch (ClassCastException | NullPointerException e) {
            throw new IllegalArgumentException(where + ": per-flow match needs ipSrc, ipDst, proto, sport, dport");
        }
    }
}
