package org.planck.app.te.algo;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowTree;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The load placed flows put on the fabric: each flow's placement, measured rate and demand, and
 * for every switch egress port (links and host ports) the sum of the demands of the flows whose
 * path crosses it and the set of those flows. Every update touches only the ports of the flow's
 * path (and, when a flow starts or stops being an elephant, the elephants of its two hosts), so
 * no query or decision scans all flows. Not thread-safe.
 *
 * <h2>Demand</h2>
 * A flow's measured rate says what it gets where it is now, not what it would take elsewhere:
 * two TCP flows sharing a link each measure half of it, and a flow still in slow start measures
 * little. TE plans with demand instead, after Hedera's demand estimation (NSDI'10, §4.2): an
 * <em>elephant</em> (a flow whose measured rate reached {@link #elephantFraction()} of its
 * source host's link rate; it stays one until it leaves, as a flow locked out of a queue
 * measures almost nothing yet still wants its share) is network-limited,
 * so its demand is its fair share of its hosts' links,
 * {@code min(source link / elephants from the source, destination link / elephants to the
 * destination)}. This is the first round of Hedera's max-min estimate, exact whenever each host
 * sends (or receives) one elephant at a time, and it only needs per-host counts, so it is kept
 * incrementally. An elephant's measured rate is deliberately not used: TCP rates swing (slow
 * start, losses, one flow locking another out of a shared queue), while the fair share changes
 * only when elephants come and go, so decisions taken on it do not chase the swings back and
 * forth. Other flows' demand is their measured rate. A fraction of 0 turns demand estimation
 * off: demand = measured rate.
 */
public final class FabricLoad {
    /** Default {@link #elephantFraction()}: Hedera's 10 % of the host link. */
    public static final double DEFAULT_ELEPHANT_FRACTION = 0.1;

    private RoutingPlan plan;
    private double elephantFraction = DEFAULT_ELEPHANT_FRACTION;
    private Map<MacAddress, Integer> hostIds;
    private double[] hostCapacityBytesPerSec;
    /** Elephants per source host and per destination host. */
    private List<Set<PlacedFlow>> elephantsFrom;
    private List<Set<PlacedFlow>> elephantsTo;
    private Map<ConnectPoint, Integer> portIds;
    private ConnectPoint[] ports;
    private double[] capacityBytesPerSec;
    private double[] load;
    /** Sum of the measured rates of the flows placed on the port. */
    private double[] carried;
    /** Load measured on the port by other means (port counters, collector notices); 0 if none. */
    private double[] measured;
    /** Ports a collector reported congested and not yet cleared. */
    private boolean[] congested;
    private List<Set<PlacedFlow>> flowsOnPort;
    private final Map<PathKey, int[]> pathCache = new HashMap<>();
    private final Map<PathKey, RouteChoices> choicesCache = new HashMap<>();
    private final Map<FlowKey, PlacedFlow> flows = new HashMap<>();

    /** A flow with its placement, the ports of its current path and its alternatives. */
    static final class PlacedFlow {
        final FlowKey key;
        FlowPlacement placement;
        int[] path;
        RouteChoices choices;
        int srcHost;
        int dstHost;
        boolean elephant;
        /** What the flow adds to every port of its path: its demand, bytes/s. */
        double demand;
        /** When TE last moved the flow (monotonic nanos), if {@link #moved}. */
        long movedAt;
        boolean moved;
        /** Times TE moved the flow (its damping grows with them). */
        int moves;

        PlacedFlow(FlowKey key, FlowPlacement placement, int[] path, RouteChoices choices) {
            this.key = key;
            this.placement = placement;
            this.path = path;
            this.choices = choices;
        }
    }

    /** The usable path indices from one source edge to one destination, with their ports. */
    static final class RouteChoices {
        static final RouteChoices NONE = new RouteChoices(new int[0], new int[0][]);
        final int[] indices;
        final int[][] paths;

        RouteChoices(int[] indices, int[][] paths) {
            this.indices = indices;
            this.paths = paths;
        }
    }

    /** (destination, source edge, path index): identity of one branch of one tree. */
    private static final class PathKey {
        final long dst;
        final int edge;
        final int index;

        PathKey(long dst, int edge, int index) {
            this.dst = dst;
            this.edge = edge;
            this.index = index;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof PathKey)) {
                return false;
            }
            PathKey k = (PathKey) o;
            return dst == k.dst && edge == k.edge && index == k.index;
        }

        @Override
        public int hashCode() {
            long h = dst * 0x9E3779B97F4A7C15L + edge * 0xC2B2AE3D27D4EB4FL + index;
            return (int) (h ^ (h >>> 29));
        }
    }

    /**
     * An empty load view over a routing plan.
     *
     * @param plan routing plan whose paths flows are placed on
     */
    public FabricLoad(RoutingPlan plan) {
        index(checkNotNull(plan, "plan"));
    }

    private void index(RoutingPlan p) {
        this.plan = p;
        FabricGraph g = p.graph();
        List<ConnectPoint> all = new ArrayList<>();
        List<Long> caps = new ArrayList<>();
        for (FabricLink l : g.links()) {
            all.add(l.src());
            caps.add(l.capacityBps());
        }
        for (FabricHost h : g.hosts()) {
            all.add(h.location());
            caps.add(h.capacityBps());
        }
        ImmutableMap.Builder<MacAddress, Integer> hids = ImmutableMap.builder();
        List<FabricHost> hosts = new ArrayList<>(g.hosts());
        this.hostCapacityBytesPerSec = new double[hosts.size()];
        this.elephantsFrom = new ArrayList<>(hosts.size());
        this.elephantsTo = new ArrayList<>(hosts.size());
        for (int i = 0; i < hosts.size(); i++) {
            hids.put(hosts.get(i).mac(), i);
            hostCapacityBytesPerSec[i] = hosts.get(i).capacityBps() / 8.0;
            elephantsFrom.add(new HashSet<>());
            elephantsTo.add(new HashSet<>());
        }
        this.hostIds = hids.build();
        ImmutableMap.Builder<ConnectPoint, Integer> ids = ImmutableMap.builder();
        this.ports = all.toArray(new ConnectPoint[0]);
        this.capacityBytesPerSec = new double[ports.length];
        this.load = new double[ports.length];
        this.carried = new double[ports.length];
        this.measured = new double[ports.length];
        this.congested = new boolean[ports.length];
        this.flowsOnPort = new ArrayList<>(ports.length);
        for (int i = 0; i < ports.length; i++) {
            ids.put(ports[i], i);
            capacityBytesPerSec[i] = caps.get(i) / 8.0;
            flowsOnPort.add(null);
        }
        this.portIds = ids.build();
        pathCache.clear();
        choicesCache.clear();
    }

    public RoutingPlan plan() {
        return plan;
    }

    /**
     * Places a flow (or replaces its placement), moving its load onto the new path.
     *
     * @param flow      the flow
     * @param placement hosts, path index and rate
     * @throws IllegalArgumentException if a host is unknown or the path index does not reach the
     *                                  source (same-edge flows ignore the index); nothing changes then
     */
    public void place(FlowKey flow, FlowPlacement placement) {
        checkNotNull(flow, "flow");
        int[] path = path(placement.src(), placement.dst(), placement.pathIndex());
        RouteChoices choices = choices(placement.src(), placement.dst());
        PlacedFlow f = flows.get(flow);
        if (f != null) {
            unload(f);
            dropElephant(f);
            f.placement = placement;
            f.path = path;
            f.choices = choices;
        } else {
            f = new PlacedFlow(flow, placement, path, choices);
            flows.put(flow, f);
        }
        f.srcHost = hostIds.get(placement.src());
        f.dstHost = hostIds.get(placement.dst());
        f.demand = placement.rateBytesPerSec();
        loadPath(f);
        classify(f);
    }

    /** Adds a flow's demand to the ports of its path. */
    private void loadPath(PlacedFlow f) {
        for (int p : f.path) {
            load[p] += f.demand;
            carried[p] += f.placement.rateBytesPerSec();
            Set<PlacedFlow> on = flowsOnPort.get(p);
            if (on == null) {
                on = new HashSet<>();
                flowsOnPort.set(p, on);
            }
            on.add(f);
        }
    }

    /** Re-decides whether a flow is an elephant from its measured rate, then its demand. */
    private void classify(PlacedFlow f) {
        double rate = f.placement.rateBytesPerSec();
        double hostRate = hostCapacityBytesPerSec[f.srcHost];
        // Once an elephant, always one until the flow leaves: a TCP flow locked out of a queue
        // measures almost nothing, yet it still wants its share.
        boolean elephant = elephantFraction > 0 && (f.elephant || rate >= elephantFraction * hostRate);
        if (elephant != f.elephant) {
            setElephant(f, elephant);
            redemandHostsOf(f);
        }
        redemand(f);
    }

    /** A flow's hosts' elephant counts changed: so did the fair shares of their elephants. */
    private void redemandHostsOf(PlacedFlow f) {
        for (PlacedFlow e : elephantsFrom.get(f.srcHost)) {
            redemand(e);
        }
        for (PlacedFlow e : elephantsTo.get(f.dstHost)) {
            redemand(e);
        }
    }

    private void setElephant(PlacedFlow f, boolean elephant) {
        if (f.elephant == elephant) {
            return;
        }
        f.elephant = elephant;
        if (elephant) {
            elephantsFrom.get(f.srcHost).add(f);
            elephantsTo.get(f.dstHost).add(f);
        } else {
            elephantsFrom.get(f.srcHost).remove(f);
            elephantsTo.get(f.dstHost).remove(f);
        }
    }

    /** Recomputes a flow's demand and moves the difference onto its path's ports. */
    private void redemand(PlacedFlow f) {
        double demand = f.elephant
                ? Math.min(hostCapacityBytesPerSec[f.srcHost] / elephantsFrom.get(f.srcHost).size(),
                           hostCapacityBytesPerSec[f.dstHost] / elephantsTo.get(f.dstHost).size())
                : f.placement.rateBytesPerSec();
        double delta = demand - f.demand;
        if (delta != 0) {
            for (int p : f.path) {
                load[p] = Math.max(0, load[p] + delta);
            }
            f.demand = demand;
        }
    }

    /**
     * The fraction of its source host's link rate at which a flow counts as an elephant, whose
     * demand TE estimates from its hosts' fair shares (0: demand estimation off).
     *
     * @return fraction in [0, 1]
     */
    public double elephantFraction() {
        return elephantFraction;
    }

    /**
     * Sets the elephant fraction and re-classifies every flow (a configuration change: scans all
     * flows).
     *
     * @param fraction in [0, 1]; 0 turns demand estimation off
     */
    public void setElephantFraction(double fraction) {
        checkArgument(fraction >= 0 && fraction <= 1, "elephant fraction must be in [0, 1]: %s", fraction);
        if (fraction == elephantFraction) {
            return;
        }
        elephantFraction = fraction;
        for (PlacedFlow f : flows.values()) {
            setElephant(f, false);
        }
        for (PlacedFlow f : flows.values()) {
            redemand(f);
        }
        for (PlacedFlow f : flows.values()) {
            classify(f);
        }
    }

    /**
     * The demand TE plans a flow with (see the class comment).
     *
     * @param flow the flow
     * @return bytes/s, or empty if not placed
     */
    public OptionalDouble demand(FlowKey flow) {
        PlacedFlow f = flows.get(flow);
        return f == null ? OptionalDouble.empty() : OptionalDouble.of(f.demand);
    }

    /**
     * Whether a placed flow counts as an elephant.
     *
     * @param flow the flow
     * @return false if not placed or not an elephant
     */
    public boolean isElephant(FlowKey flow) {
        PlacedFlow f = flows.get(flow);
        return f != null && f.elephant;
    }

    /**
     * Updates a placed flow's rate, adjusting the load along its path.
     *
     * @param flow            the flow
     * @param rateBytesPerSec new rate estimate
     * @return false if the flow is not placed
     */
    public boolean updateRate(FlowKey flow, double rateBytesPerSec) {
        PlacedFlow f = flows.get(flow);
        if (f == null) {
            return false;
        }
        double delta = rateBytesPerSec - f.placement.rateBytesPerSec();
        for (int p : f.path) {
            carried[p] = Math.max(0, carried[p] + delta);
        }
        f.placement = f.placement.withRate(rateBytesPerSec);
        classify(f);
        return true;
    }

    /**
     * Removes a flow (expired or ended) and its load.
     *
     * @param flow the flow
     * @return false if it was not placed
     */
    public boolean remove(FlowKey flow) {
        PlacedFlow f = flows.remove(flow);
        if (f == null) {
            return false;
        }
        unload(f);
        dropElephant(f);
        return true;
    }

    /** A flow leaves (or is re-placed): its hosts' other elephants get its share back. */
    private void dropElephant(PlacedFlow f) {
        if (!f.elephant) {
            return;
        }
        setElephant(f, false);
        redemandHostsOf(f);
    }

    /** Moves a placed flow to its alternative in slot {@code slot} of its route choices. */
    void moveTo(PlacedFlow f, int slot) {
        int[] to = f.choices.paths[slot];
        // A measured load was taken with the flow where it was: the ports it leaves lose what
        // it carried, the ports it joins (if measured) gain it. So the load the view cannot
        // explain stays where it was measured, and a port measured once does not stay as
        // loaded as it was, with every later decision until the next measurement moving yet
        // more flows off it.
        double rate = f.placement.rateBytesPerSec();
        for (int p : f.path) {
            if (measured[p] > 0 && !contains(to, p)) {
                measured[p] = Math.max(0, measured[p] - rate);
            }
        }
        for (int p : to) {
            if (measured[p] > 0 && !contains(f.path, p)) {
                measured[p] += rate;
            }
        }
        unload(f);
        f.placement = f.placement.withPathIndex(f.choices.indices[slot]);
        f.path = f.choices.paths[slot];
        loadPath(f);
    }

    /** Whether a path (port ids) crosses a port. */
    static boolean contains(int[] path, int port) {
        for (int q : path) {
            if (q == port) {
                return true;
            }
        }
        return false;
    }

    PlacedFlow placed(FlowKey flow) {
        return flows.get(flow);
    }

    private void unload(PlacedFlow f) {
        for (int p : f.path) {
            load[p] = Math.max(0, load[p] - f.demand);
            carried[p] = Math.max(0, carried[p] - f.placement.rateBytesPerSec());
            Set<PlacedFlow> on = flowsOnPort.get(p);
            on.remove(f);
            if (on.isEmpty()) {
                // Exact zero once the last flow leaves, whatever rounding accumulated.
                load[p] = 0;
                carried[p] = 0;
            }
        }
    }

    /**
     * Switches to a new routing plan (after re-planning): every flow's path is recomputed; flows
     * whose placement is no longer valid are dropped and returned for the caller to re-place.
     *
     * @param newPlan the plan now in force
     * @return the dropped flows and their old placements
     */
    public Map<FlowKey, FlowPlacement> rebase(RoutingPlan newPlan) {
        List<PlacedFlow> old = new ArrayList<>(flows.values());
        Map<ConnectPoint, Double> measuredBefore = new HashMap<>();
        List<ConnectPoint> congestedBefore = new ArrayList<>();
        for (int i = 0; i < ports.length; i++) {
            if (measured[i] > 0) {
                measuredBefore.put(ports[i], measured[i]);
            }
            if (congested[i]) {
                congestedBefore.add(ports[i]);
            }
        }
        flows.clear();
        index(checkNotNull(newPlan, "newPlan"));
        // Port marks and measurements survive re-planning (port ids may be renumbered).
        measuredBefore.forEach(this::reportPortLoad);
        congestedBefore.forEach(this::markCongested);
        Map<FlowKey, FlowPlacement> dropped = new HashMap<>();
        for (PlacedFlow f : old) {
            try {
                place(f.key, f.placement);
                // Damping state survives re-planning.
                PlacedFlow now = flows.get(f.key);
                now.moved = f.moved;
                now.movedAt = f.movedAt;
                now.moves = f.moves;
            } catch (IllegalArgumentException ex) {
                dropped.put(f.key, f.placement);
            }
        }
        return dropped;
    }

    /**
     * A flow's placement.
     *
     * @param flow the flow
     * @return placement, or empty
     */
    public Optional<FlowPlacement> placement(FlowKey flow) {
        PlacedFlow f = flows.get(flow);
        return f == null ? Optional.empty() : Optional.of(f.placement);
    }

    /**
     * A copy of all placements.
     *
     * @return flow to placement
     */
    public Map<FlowKey, FlowPlacement> placements() {
        Map<FlowKey, FlowPlacement> m = new HashMap<>(flows.size() * 2);
        flows.forEach((k, f) -> m.put(k, f.placement));
        return m;
    }

    public int flowCount() {
        return flows.size();
    }

    /**
     * Estimated load on an egress port: the sum of the demands of the flows crossing it.
     *
     * @param port switch egress port
     * @return bytes/s, 0 for unknown ports
     */
    public double loadBytesPerSec(ConnectPoint port) {
        Integer id = portIds.get(port);
        return id == null ? 0 : load[id];
    }

    /**
     * Records a load measured on a port by other means (Poll mode's port counters, a collector's
     * utilisation report). Until replaced or cleared, the part of it that the measured rates of
     * the port's known flows do not account for (traffic without flow estimates) adds to the
     * port's demand sum. TE's own moves adjust it: a flow moved off the port takes its measured
     * rate with it, a flow moved onto it adds its rate.
     *
     * @param port            switch egress port
     * @param bytesPerSec     measured load, non-negative
     * @return false if the port is unknown
     */
    public boolean reportPortLoad(ConnectPoint port, double bytesPerSec) {
        checkArgument(bytesPerSec >= 0 && Double.isFinite(bytesPerSec), "bad load %s", bytesPerSec);
        Integer id = portIds.get(port);
        if (id == null) {
            return false;
        }
        measured[id] = bytesPerSec;
        return true;
    }

    /**
     * Marks a port congested (a collector's CONGESTED notice): TE moves no flow onto it.
     *
     * @param port switch egress port
     * @return false if the port is unknown
     */
    public boolean markCongested(ConnectPoint port) {
        Integer id = portIds.get(port);
        if (id == null) {
            return false;
        }
        congested[id] = true;
        return true;
    }

    /**
     * Clears a port's congestion mark (a CLEARED notice).
     *
     * @param port switch egress port
     */
    public void clearCongested(ConnectPoint port) {
        Integer id = portIds.get(port);
        if (id != null) {
            congested[id] = false;
        }
    }

    /**
     * Whether a port is marked congested.
     *
     * @param port switch egress port
     * @return true if marked
     */
    public boolean isCongested(ConnectPoint port) {
        Integer id = portIds.get(port);
        return id != null && congested[id];
    }

    /**
     * Forgets a port's measured load.
     *
     * @param port switch egress port
     */
    public void clearPortLoad(ConnectPoint port) {
        Integer id = portIds.get(port);
        if (id != null) {
            measured[id] = 0;
        }
    }

    /**
     * Load on a port for TE decisions: the demand sum plus the measured load its known flows do
     * not account for.
     *
     * @param port switch egress port
     * @return bytes/s, 0 for unknown ports
     */
    public double effectiveLoadBytesPerSec(ConnectPoint port) {
        Integer id = portIds.get(port);
        return id == null ? 0 : load(id);
    }

    /**
     * Utilisation of an egress port for TE: effective load over capacity.
     *
     * @param port switch egress port
     * @return fraction of capacity (may exceed 1), 0 for unknown ports
     */
    public double utilisation(ConnectPoint port) {
        Integer id = portIds.get(port);
        return id == null ? 0 : load(id) / capacityBytesPerSec[id];
    }

    /**
     * The flows whose path crosses a port.
     *
     * @param port switch egress port
     * @return flows (unmodifiable view)
     */
    public Set<FlowKey> flowsOn(ConnectPoint port) {
        Integer id = portIds.get(port);
        Set<PlacedFlow> on = id == null ? null : flowsOnPort.get(id);
        if (on == null) {
            return Collections.emptySet();
        }
        Set<FlowKey> keys = new HashSet<>(on.size() * 2);
        for (PlacedFlow f : on) {
            keys.add(f.key);
        }
        return keys;
    }

    /**
     * Ports whose utilisation (effective load) exceeds a level (for the app's own congestion view and
     * for Poll mode); scans ports, not flows.
     *
     * @param utilisation fraction of capacity
     * @return ports above it
     */
    public List<ConnectPoint> portsAbove(double utilisation) {
        ImmutableList.Builder<ConnectPoint> b = ImmutableList.builder();
        for (int i = 0; i < ports.length; i++) {
            if (load(i) > utilisation * capacityBytesPerSec[i]) {
                b.add(ports[i]);
            }
        }
        return b.build();
    }

    /**
     * The egress ports of a flow's current path.
     *
     * @param flow the flow
     * @return ports, or empty list if the flow is not placed
     */
    public List<ConnectPoint> pathOf(FlowKey flow) {
        PlacedFlow f = flows.get(flow);
        if (f == null) {
            return List.of();
        }
        List<ConnectPoint> l = new ArrayList<>(f.path.length);
        for (int p : f.path) {
            l.add(ports[p]);
        }
        return l;
    }

    // ---- dense views for the TE decision (same package) ----

    int portId(ConnectPoint port) {
        Integer id = portIds.get(port);
        return id == null ? -1 : id;
    }

    boolean congested(int port) {
        return congested[port];
    }

    void markCongested(int port) {
        congested[port] = true;
    }

    /**
     * The load TE decides with: the demand sum, plus whatever part of a measured load the
     * measured rates of the port's known flows do not account for (traffic without estimates yet).
     * A port measured hot whose flows are limited elsewhere (e.g. all by their receivers) is not
     * over its demand, and moving them would gain nothing.
     */
    double load(int port) {
        return load[port] + unexplained(port, 0);
    }

    /**
     * Measured load on a port that the measured rates of its known flows do not account for. A
     * measurement above the port's line rate (sampled estimates over short windows can read
     * high) counts as the line rate.
     *
     * @param port                port id
     * @param reportedBytesPerSec a load measured just now, or 0
     * @return bytes/s
     */
    double unexplained(int port, double reportedBytesPerSec) {
        double m = Math.min(capacityBytesPerSec[port], Math.max(measured[port], reportedBytesPerSec));
        return Math.max(0, m - carried[port]);
    }

    double capacity(int port) {
        return capacityBytesPerSec[port];
    }

    /**
     * Whether some flow on the port has a usable path that does not cross it. If none has (a
     * host's own port: every path to the host ends there), no move can take load off the port,
     * so a relief of it can only look and find nothing.
     *
     * @param port egress port
     * @return true if at least one flow on the port could leave it
     */
    public boolean anyFlowCanLeave(ConnectPoint port) {
        Integer p = portIds.get(port);
        if (p == null) {
            return false;
        }
        for (PlacedFlow f : flowsOnId(p)) {
            for (int[] alt : f.choices.paths) {
                if (!contains(alt, p)) {
                    return true;
                }
            }
        }
        return false;
    }

    Set<PlacedFlow> flowsOnId(int port) {
        Set<PlacedFlow> on = flowsOnPort.get(port);
        return on == null ? Collections.emptySet() : on;
    }

    /**
     * The ports of the path from src to dst on a path index.
     *
     * @throws IllegalArgumentException if there is no such path
     */
    int[] path(MacAddress src, MacAddress dst, int index) {
        FabricGraph g = plan.graph();
        FabricHost s = g.host(src).orElseThrow(() -> new IllegalArgumentException("unknown host " + src));
        FabricHost d = g.host(dst).orElseThrow(() -> new IllegalArgumentException("unknown host " + dst));
        if (s.edge().equals(d.edge())) {
            return new int[]{portIds.get(d.location())};
        }
        int edge = g.index(s.edge());
        PathKey key = new PathKey(dst.toLong(), edge, index);
        int[] cached = pathCache.get(key);
        if (cached != null) {
            return cached;
        }
        ShadowPath p = plan.path(src, dst, index).orElseThrow(() -> new IllegalArgumentException(
                "no shadow path " + index + " from " + s.edge() + " to " + dst));
        List<ConnectPoint> egress = p.egressPorts();
        int[] ids = new int[egress.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = portIds.get(egress.get(i));
        }
        pathCache.put(key, ids);
        return ids;
    }

    /**
     * Works out now the usable paths from every edge switch toward every host, which the view
     * otherwise works out for each pair the first time a flow of it is placed: a new plan's
     * first decisions (a whole round of new flows) then find them ready.
     *
     * @param maxPairs the most (edge, destination) pairs to prepare; a large fabric prepares
     *                 that many and leaves the rest to first use
     * @return pairs whose paths are ready
     */
    public int prepareChoices(int maxPairs) {
        checkArgument(maxPairs >= 0, "maxPairs must be >= 0");
        Map<DeviceId, FabricHost> onePerEdge = new LinkedHashMap<>();
        for (FabricHost h : plan.graph().hosts()) {
            onePerEdge.putIfAbsent(h.edge(), h);
        }
        for (FabricHost d : plan.graph().hosts()) {
            for (FabricHost s : onePerEdge.values()) {
                if (choicesCache.size() >= maxPairs) {
                    return choicesCache.size();
                }
                if (!s.edge().equals(d.edge())) {
                    choices(s.mac(), d.mac());
                }
            }
        }
        return choicesCache.size();
    }

    /** Pairs whose usable paths are known (tests). */
    int preparedPairs() {
        return choicesCache.size();
    }

    /** The usable path indices from src's edge toward dst (none for same-edge pairs), cached. */
    private RouteChoices choices(MacAddress src, MacAddress dst) {
        FabricGraph g = plan.graph();
        FabricHost s = g.host(src).orElseThrow(() -> new IllegalArgumentException("unknown host " + src));
        if (s.edge().equals(g.host(dst).map(FabricHost::edge).orElse(null))) {
            return RouteChoices.NONE;
        }
        PathKey key = new PathKey(dst.toLong(), g.index(s.edge()), -1);
        RouteChoices c = choicesCache.get(key);
        if (c == null) {
            List<ShadowTree> usable = plan.usableTrees(s.edge(), dst);
            int[] indices = new int[usable.size()];
            int[][] paths = new int[usable.size()][];
            for (int i = 0; i < indices.length; i++) {
                indices[i] = usable.get(i).index();
                paths[i] = path(src, dst, indices[i]);
            }
            c = new RouteChoices(indices, paths);
            choicesCache.put(key, c);
        }
        return c;
    }

    @Override
    public String toString() {
        return "FabricLoad{flows=" + flows.size() + ", ports=" + ports.length + "}";
    }
}
