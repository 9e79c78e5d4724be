package org.planck.app.telemetry.algo;

import com.google.common.collect.ImmutableSet;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Per-port load kept incrementally: each flow record contributes its rate to the port it is
 * placed on, so a rate update or a move adjusts two sums instead of rescanning all flows.
 * Rates are integral bits per second, so repeated updates never drift. Placing the same
 * record twice is a no-op, which lets both the local path and replication events call it.
 * Thread-safe.
 */
public final class PortLoadLedger {

    private static final class Placement {
        final ConnectPoint port;
        final long bps;

        Placement(ConnectPoint port, long bps) {
            this.port = port;
            this.bps = bps;
        }
    }

    private static final class PortTally {
        long bps;
        final Set<FlowAtSwitch> flows = new HashSet<>();
    }

    private final Map<FlowAtSwitch, Placement> placements = new HashMap<>();
    private final Map<ConnectPoint, PortTally> ports = new HashMap<>();
    // Which switches report each flow, so a flow's records are found without a scan.
    private final Map<FlowKey, Set<FlowAtSwitch>> byFlow = new HashMap<>();

    /**
     * Places a flow record on a port with a rate, replacing its previous placement.
     *
     * @param key     the flow record
     * @param port    its egress port
     * @param bps     its rate, bits per second, >= 0
     * @param touched receives every port whose load changed
     */
    public synchronized void place(FlowAtSwitch key, ConnectPoint port, long bps, Set<ConnectPoint> touched) {
        Placement old = placements.get(key);
        if (old != null && old.bps == bps && old.port.equals(port)) {
            return;
        }
        if (old != null) {
            unplace(key, old, touched);
        }
        if (old == null) {
            byFlow.computeIfAbsent(key.flow(), f -> new HashSet<>(4)).add(key);
        }
        placements.put(key, new Placement(port, bps));
        PortTally tally = ports.computeIfAbsent(port, p -> new PortTally());
        tally.bps += bps;
        tally.flows.add(key);
        touched.add(port);
    }

    /**
     * Removes a flow record's contribution.
     *
     * @param key     the flow record
     * @param touched receives the port whose load changed, if any
     */
    public synchronized void remove(FlowAtSwitch key, Set<ConnectPoint> touched) {
        Placement old = placements.remove(key);
        if (old != null) {
            unplace(key, old, touched);
            Set<FlowAtSwitch> sites = byFlow.get(key.flow());
            sites.remove(key);
            if (sites.isEmpty()) {
                byFlow.remove(key.flow());
            }
        }
    }

    private void unplace(FlowAtSwitch key, Placement old, Set<ConnectPoint> touched) {
        PortTally tally = ports.get(old.port);
        tally.bps -= old.bps;
        tally.flows.remove(key);
        if (tally.flows.isEmpty()) {
            ports.remove(old.port);
        }
        touched.add(old.port);
    }

    /**
     * Load of a port.
     *
     * @param port the port
     * @return sum of the rates placed on it, bits per second
     */
    public synchronized long load(ConnectPoint port) {
        PortTally t = ports.get(port);
        return t == null ? 0 : t.bps;
    }

    /**
     * Number of flow records placed on a port.
     *
     * @param port the port
     * @return count
     */
    public synchronized int flowCount(ConnectPoint port) {
        PortTally t = ports.get(port);
        return t == null ? 0 : t.flows.size();
    }

    /**
     * The flow records placed on a port.
     *
     * @param port the port
     * @return a copy of the set
     */
    public synchronized Set<FlowAtSwitch> flowsOn(ConnectPoint port) {
        PortTally t = ports.get(port);
        return t == null ? ImmutableSet.of() : ImmutableSet.copyOf(t.flows);
    }

    /**
     * The records of one flow, one per switch reporting it.
     *
     * @param flow the flow
     * @return a copy of the set
     */
    public synchronized Set<FlowAtSwitch> sitesOf(FlowKey flow) {
        Set<FlowAtSwitch> sites = byFlow.get(flow);
        return sites == null ? ImmutableSet.of() : ImmutableSet.copyOf(sites);
    }

    /**
     * Ports carrying at least one flow record.
     *
     * @return a copy of the set
     */
    public synchronized Set<ConnectPoint> ports() {
        return ImmutableSet.copyOf(ports.keySet());
    }

    /**
     * Number of flow records placed.
     *
     * @return count
     */
    public synchronized int size() {
        return placements.size();
    }
}
