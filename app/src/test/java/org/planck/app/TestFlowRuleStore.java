package org.planck.app;

import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.DefaultFlowEntry;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleServiceAdapter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Captures the flow rules an application emits, as a switch's table would hold them: one
 * rule per (selector, priority, table), a later add replacing an earlier one. Counts how
 * many operations each device received.
 */
public class TestFlowRuleStore extends FlowRuleServiceAdapter {
    private final Map<DeviceId, Map<List<Object>, FlowRule>> tables = new ConcurrentHashMap<>();
    public final Map<DeviceId, Integer> operationsPerDevice = new ConcurrentHashMap<>();

    private static List<Object> key(FlowRule r) {
        return Arrays.asList(r.selector(), r.priority(), r.tableId());
    }

    private void add(FlowRule r) {
        tables.computeIfAbsent(r.deviceId(), d -> new ConcurrentHashMap<>()).put(key(r), r);
        operationsPerDevice.merge(r.deviceId(), 1, Integer::sum);
    }

    private void remove(FlowRule r) {
        Map<List<Object>, FlowRule> t = tables.get(r.deviceId());
        if (t != null) {
            t.remove(key(r));
        }
        operationsPerDevice.merge(r.deviceId(), 1, Integer::sum);
    }

    @Override
    public void apply(FlowRuleOperations ops) {
        for (Set<FlowRuleOperation> stage : ops.stages()) {
            for (FlowRuleOperation op : stage) {
                if (op.type() == FlowRuleOperation.Type.REMOVE) {
                    remove(op.rule());
                } else {
                    add(op.rule());
                }
            }
        }
    }

    @Override
    public void applyFlowRules(FlowRule... flowRules) {
        for (FlowRule r : flowRules) {
            add(r);
        }
    }

    @Override
    public void removeFlowRules(FlowRule... flowRules) {
        for (FlowRule r : flowRules) {
            remove(r);
        }
    }

    @Override
    public void removeFlowRulesById(ApplicationId appId) {
        for (Map<List<Object>, FlowRule> t : tables.values()) {
            t.values().removeIf(r -> r.appId() == appId.id());
        }
    }

    @Override
    public Iterable<FlowEntry> getFlowEntries(DeviceId deviceId) {
        List<FlowEntry> entries = new ArrayList<>();
        tables.getOrDefault(deviceId, Map.of()).values().forEach(r -> entries.add(new DefaultFlowEntry(r)));
        return entries;
    }

    @Override
    public int getFlowRuleCount() {
        return tables.values().stream().mapToInt(Map::size).sum();
    }

    /**
     * The rules on one switch.
     *
     * @param deviceId switch
     * @return rules
     */
    public List<FlowRule> rules(DeviceId deviceId) {
        return new ArrayList<>(tables.getOrDefault(deviceId, Map.of()).values());
    }

    /**
     * All rules by switch.
     *
     * @return snapshot
     */
    public Map<DeviceId, List<FlowRule>> snapshot() {
        Map<DeviceId, List<FlowRule>> m = new HashMap<>();
        tables.forEach((d, t) -> {
            if (!t.isEmpty()) {
                m.put(d, new ArrayList<>(t.values()));
            }
        });
        return m;
    }
}
