package org.planck.lab.control;

import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.telemetry.FlowRecord;
import org.planck.api.telemetry.FlowStateService;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The lab's live flows: the latest record of each flow at each switch, as the app's flow state
 * keeps them, fed by the collector's telemetry (PlanckTE) or by rule counters (Poll). A flow
 * leaves when the workload says it finished, where the app would let it expire. Not
 * thread-safe: the controller serialises all calls.
 */
final class LabFlowState implements FlowStateService {
    private final Map<FlowKey, Map<DeviceId, FlowRecord>> byFlow = new HashMap<>();
    private final Map<ConnectPoint, Set<FlowKey>> byPort = new HashMap<>();
    private int records;

    /**
     * Records a flow's latest estimate at one switch, replacing the previous one there.
     *
     * @param r the record
     */
    void put(FlowRecord r) {
        checkNotNull(r, "record");
        Map<DeviceId, FlowRecord> at = byFlow.computeIfAbsent(r.flow(), k -> new HashMap<>());
        FlowRecord old = at.put(r.port().deviceId(), r);
        if (old == null) {
            records++;
        } else if (!old.port().equals(r.port())) {
            unindex(old);
        }
        byPort.computeIfAbsent(r.port(), k -> new HashSet<>()).add(r.flow());
    }

    /**
     * Forgets a flow.
     *
     * @param flow the flow
     * @return false if it was unknown
     */
    boolean remove(FlowKey flow) {
        Map<DeviceId, FlowRecord> at = byFlow.remove(flow);
        if (at == null) {
            return false;
        }
        for (FlowRecord r : at.values()) {
            unindex(r);
            records--;
        }
        return true;
    }

    void clear() {
        byFlow.clear();
        byPort.clear();
        records = 0;
    }

    private void unindex(FlowRecord r) {
        Set<FlowKey> on = byPort.get(r.port());
        if (on != null) {
            on.remove(r.flow());
            if (on.isEmpty()) {
                byPort.remove(r.port());
            }
        }
    }

    @Override
    public Collection<FlowRecord> flows() {
        List<FlowRecord> all = new ArrayList<>(records);
        byFlow.values().forEach(m -> all.addAll(m.values()));
        return all;
    }

    @Override
    public Collection<FlowRecord> flows(FlowKey flow) {
        Map<DeviceId, FlowRecord> at = byFlow.get(flow);
        return at == null ? List.of() : new ArrayList<>(at.values());
    }

    @Override
    public Collection<FlowRecord> flowsOn(ConnectPoint port) {
        Set<FlowKey> on = byPort.get(port);
        if (on == null) {
            return List.of();
        }
        List<FlowRecord> l = new ArrayList<>(on.size());
        for (FlowKey f : on) {
            FlowRecord r = byFlow.get(f).get(port.deviceId());
            if (r != null && r.port().equals(port)) {
                l.add(r);
            }
        }
        return l;
    }

    @Override
    public int flowRecordCount() {
        return records;
    }
}
