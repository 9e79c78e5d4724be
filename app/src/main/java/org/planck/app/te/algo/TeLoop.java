package org.planck.app.te.algo;

import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;
import org.planck.api.FlowPlacements;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FlowMove;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowPathId;
import org.planck.api.fabric.ShadowTree;
import org.planck.api.te.MoveGuard;
import org.planck.api.te.PlanckRerouteEvent;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteRejectedException;
import org.planck.api.te.RerouteReporter;
import org.planck.api.te.TeMode;
import org.planck.api.telemetry.FlowRecord;
import org.planck.api.telemetry.FlowStateService;
import org.planck.api.telemetry.PortLoad;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static org.planck.api.te.RerouteRejectedException.Reason.NOT_ROUTED;
import static org.planck.api.te.RerouteRejectedException.Reason.PATH_OUT_OF_RANGE;
import static org.planck.api.te.RerouteRejectedException.Reason.UNKNOWN_FLOW;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * The traffic-engineering loop between telemetry and shadow routes. It keeps a {@link FabricLoad}
 * in line with the live flows (rate: the largest estimate any switch reported; path: the flow's
 * placement, else its host pair's hash default), runs {@link CongestionRerouter} on a congested
 * port, and applies each move as one per-flow placement ({@link FlowPlacements#placeFlow}: one
 * ingress-edge rule). Every move is reported to the reroute reporter with its decision latency
 * (receipt of the triggering telemetry to submission of the placement), which also goes to the
 * latency sink.
 *
 * <p>It also holds the policy of when to act: {@link #onNotice} (a collector's congestion
 * notice), {@link #onPortLoads} (Poll mode's port statistics) and {@link #relieveOverloaded}
 * (ports congested or over the threshold in the load view).</p>
 *
 * <p>It sees the world through three narrow interfaces only, so the same class runs inside the
 * ONOS component ({@code ShadowRouteService}, {@code FlowStateService}, {@code RerouteService}),
 * in the lab on the emulated fabric, in tests and in benchmarks. Not thread-safe: the caller
 * serialises all calls.</p>
 */
public final class TeLoop {
    private final Logger log = getLogger(getClass());
    private final FlowPlacements routes;
    private final FlowStateService flowState;
    private final RerouteReporter reroutes;
    private final LongConsumer latencyMicros;
    /** Monotonic clock of decisions and damping; tests substitute their own. */
    private LongSupplier nanoClock = System::nanoTime;

    /** What drives moves: nothing (STATIC), polled port loads (POLL) or telemetry (PLANCK). */
    private TeMode mode = TeMode.STATIC;
    private double threshold = 0.8;
    private long dampingNanos = 100_000_000L;
    private double elephantFraction = FabricLoad.DEFAULT_ELEPHANT_FRACTION;
    private FabricLoad load;
    private CongestionRerouter rerouter;
    /** Consulted before every move (admission control keeps guarantees safe); allows all by default. */
    private volatile MoveGuard guard = MoveGuard.ALLOW_ALL;
    /** Ports marked congested; re-marked when the load view is rebuilt for a new plan. */
    private final Set<ConnectPoint> congested = new HashSet<>();
    /**
     * Utilisation reported with a congestion that was marked but not yet acted on (this node was
     * not the leader then); a later relief of the port uses it once.
     */
    private final Map<ConnectPoint, Double> unhandled = new HashMap<>();
    /** Whether ports over the threshold in the load view (mirror samples) trigger reliefs. */
    private boolean loadViewTriggers = true;
    /** Hot ports a load-view check left alone because no flow on them can leave them. */
    private long pinnedPortsSkipped;
    /** Ports carrying a measured load (Poll mode). */
    private final Set<ConnectPoint> measured = new HashSet<>();

    /**
     * Creates a loop.
     *
     * @param routes        routing plan and flow placements
     * @param flowState     live flow rates
     * @param reroutes      where moves are reported (reroute log and events)
     * @param latencyMicros receives each move's decision latency in µs (the metrics histogram)
     */
    public TeLoop(FlowPlacements routes, FlowStateService flowState, RerouteReporter reroutes,
                  LongConsumer latencyMicros) {
        this.routes = checkNotNull(routes, "routes");
        this.flowState = checkNotNull(flowState, "flowState");
        this.reroutes = checkNotNull(reroutes, "reroutes");
        this.latencyMicros = checkNotNull(latencyMicros, "latencyMicros");
    }

    /**
     * Sets the congestion threshold, damping interval and elephant fraction.
     *
     * @param thresholdFraction fraction of port capacity, (0, 1]
     * @param dampingMillis     a moved flow stays put this long, ms, >= 0
     * @param elephantFraction  fraction of its host link at which a flow is planned with its
     *                          demand ({@link FabricLoad}), [0, 1]; 0 plans with measured rates
     */
    public void configure(double thresholdFraction, long dampingMillis, double elephantFraction) {
        checkArgument(thresholdFraction > 0 && thresholdFraction <= 1, "threshold must be in (0, 1]");
        checkArgument(dampingMillis >= 0, "damping must be >= 0");
        checkArgument(elephantFraction >= 0 && elephantFraction <= 1, "elephant fraction must be in [0, 1]");
        this.threshold = thresholdFraction;
        this.dampingNanos = dampingMillis * 1_000_000L;
        this.elephantFraction = elephantFraction;
        if (rerouter != null) {
            rerouter.configure(threshold, dampingNanos);
            load.setElephantFraction(elephantFraction);
        }
    }

    public double threshold() {
        return threshold;
    }

    /**
     * Replaces the monotonic clock (System.nanoTime) that times damping and decision latency.
     *
     * @param clock nanoseconds, monotonic
     */
    public void useClock(LongSupplier clock) {
        this.nanoClock = checkNotNull(clock, "clock");
    }

    /**
     * Sets what drives moves. STATIC ignores congestion notices and polled loads; POLL acts on
     * {@link #onPortLoads} only; PLANCK on {@link #onNotice} and {@link #relieveOverloaded}.
     * Cleared notices are taken in every mode, so no port stays marked after a mode change.
     * Manual reroutes ({@link #reroute}) are allowed in every mode.
     *
     * @param mode the mode
     */
    public void setMode(TeMode mode) {
        this.mode = checkNotNull(mode, "mode");
    }

    /**
     * What drives moves.
     *
     * @return the mode
     */
    public TeMode mode() {
        return mode;
    }

    /**
     * Sets whether {@link #relieveOverloaded} also relieves ports its own load view puts over the
     * threshold: off when the congestion signal is INT only, so only the given ports (INT queue
     * congestion) trigger moves, while the view still chooses which flows move and where.
     *
     * @param triggers true (default) to relieve ports over the threshold in the view
     */
    public void setLoadViewTriggers(boolean triggers) {
        this.loadViewTriggers = triggers;
    }

    /**
     * Sets what is asked before each move (automatic or manual).
     *
     * @param moveGuard the guard; {@link MoveGuard#ALLOW_ALL} to allow every move
     */
    public void setMoveGuard(MoveGuard moveGuard) {
        this.guard = checkNotNull(moveGuard, "moveGuard");
    }

    /**
     * Follows the plan in force: a new plan rebases the load view and re-reads the flows.
     *
     * @return false if no plan is in force
     */
    private boolean onPlan() {
        RoutingPlan p = routes.plan().orElse(null);
        if (p == null) {
            load = null;
            rerouter = null;
            return false;
        }
        if (load == null) {
            load = new FabricLoad(p);
            load.setElephantFraction(elephantFraction);
            rerouter = new CongestionRerouter(load, threshold, dampingNanos);
            congested.forEach(rerouter::markCongested);
        } else if (load.plan() != p) {
            // Flows, congestion marks, measured loads and damping survive; flows whose path is
            // gone are dropped by the rebase and re-placed (default or placement) right away.
            load.rebase(p);
            syncFlows();
        }
        return true;
    }

    /** The most (edge, destination) pairs {@link #prepareRoutes} works out ahead. */
    static final int MAX_PREPARED_PAIRS = 100_000;

    /**
     * Works out the paths of the plan in force for every (edge switch, destination host) pair
     * now, up to {@link #MAX_PREPARED_PAIRS}, rather than in the first decisions that need them.
     * Call it when a plan has just been installed, before its traffic: it costs tens of us per
     * pair, so on a large fabric it holds the caller for seconds.
     *
     * @return pairs ready (0 if no plan is in force)
     */
    public int prepareRoutes() {
        return onPlan() ? load.prepareChoices(MAX_PREPARED_PAIRS) : 0;
    }

    /**
     * Re-reads every live flow: places new ones, updates rates and paths, drops ended ones.
     * Cost is linear in the live flows; it runs periodically, not per decision.
     *
     * @return flows tracked afterwards (0 if no plan is in force)
     */
    public int sync() {
        if (!onPlan()) {
            return 0;
        }
        syncFlows();
        return load.flowCount();
    }

    private void syncFlows() {
        Map<FlowKey, Double> rates = new HashMap<>();
        for (FlowRecord r : flowState.flows()) {
            rates.merge(r.flow(), actionableRate(r), Math::max);
        }
        Map<FlowKey, FlowPlacement> placed = routes.placements();
        for (Map.Entry<FlowKey, Double> e : rates.entrySet()) {
            track(e.getKey(), e.getValue(), placed.get(e.getKey()));
        }
        for (FlowKey f : new ArrayList<>(load.placements().keySet())) {
            if (!rates.containsKey(f)) {
                load.remove(f);
            }
        }
    }

    /**
     * Re-reads a few flows (e.g. after their placement changed elsewhere).
     *
     * @param flows the flows
     */
    public void resync(Collection<FlowKey> flows) {
        if (!onPlan()) {
            return;
        }
        for (FlowKey f : flows) {
            double rate = -1;
            for (FlowRecord r : flowState.flows(f)) {
                rate = Math.max(rate, actionableRate(r));
            }
            if (rate < 0) {
                load.remove(f);
            } else {
                track(f, rate, routes.placement(f).orElse(null));
            }
        }
    }

    /** Places or updates one flow in the load view; false if its hosts or path are unknown. */
    private boolean track(FlowKey flow, double rate, FlowPlacement placement) {
        RoutingPlan p = load.plan();
        FabricHost s = p.graph().hostByIp(flow.src()).orElse(null);
        FabricHost d = p.graph().hostByIp(flow.dst()).orElse(null);
        if (s == null || d == null) {
            load.remove(flow);
            return false;
        }
        int index;
        if (placement != null && placement.src().equals(s.mac()) && placement.dst().equals(d.mac())) {
            index = placement.pathIndex();
        } else {
            index = p.defaultPathIndex(s.mac(), d.mac()).orElse(0);
        }
        Optional<FlowPlacement> cur = load.placement(flow);
        if (cur.isPresent() && cur.get().pathIndex() == index && cur.get().src().equals(s.mac())
                && cur.get().dst().equals(d.mac())) {
            if (cur.get().rateBytesPerSec() != rate) {
                load.updateRate(flow, rate);
            }
            return true;
        }
        try {
            load.place(flow, FlowPlacement.of(s.mac(), d.mac(), index, rate));
            return true;
        } catch (IllegalArgumentException e) {
            load.remove(flow);
            return false;
        }
    }

    /**
     * Marks a port congested without acting (no flow is moved onto it).
     *
     * @param port        egress port
     * @param utilisation utilisation reported with the congestion, if any; a later
     *                    {@link #relieve} without its own report uses it
     */
    public void markCongested(ConnectPoint port, OptionalDouble utilisation) {
        congested.add(port);
        if (utilisation.isPresent()) {
            unhandled.put(port, utilisation.getAsDouble());
        }
        if (onPlan()) {
            rerouter.markCongested(port);
        }
    }

    /**
     * Clears a port's congestion mark.
     *
     * @param port egress port
     */
    public void clearCongested(ConnectPoint port) {
        congested.remove(port);
        unhandled.remove(port);
        if (rerouter != null) {
            rerouter.clearCongested(port);
        }
    }

    /**
     * Whether a port is marked congested.
     *
     * @param port egress port
     * @return true if marked
     */
    public boolean isCongested(ConnectPoint port) {
        return congested.contains(port);
    }

    /**
     * Relieves a congested port: refreshes the rates of the flows the collectors saw leave by it,
     * decides the moves and applies each as one placement. A port with a measured utilisation
     * (reported now or with an earlier, unhandled congestion) is marked congested until cleared;
     * a relief on the load view alone leaves no mark, as nothing would clear it.
     *
     * @param port          the congested egress port
     * @param utilisation   the utilisation reported with the trigger, if any (else one reported
     *                      with an earlier, unhandled congestion of the port)
     * @param receivedNanos {@link System#nanoTime()} when the triggering telemetry was received
     * @return the reroutes applied, in decision order
     */
    public List<Reroute> relieve(ConnectPoint port, OptionalDouble utilisation, long receivedNanos) {
        Double earlier = unhandled.remove(port);
        if (utilisation.isEmpty() && earlier != null) {
            utilisation = OptionalDouble.of(earlier);
        }
        if (utilisation.isPresent()) {
            congested.add(port);
        }
        if (!onPlan()) {
            return List.of();
        }
        for (FlowRecord r : flowState.flowsOn(port)) {
            Optional<FlowPlacement> cur = load.placement(r.flow());
            double rate = actionableRate(r);
            if (cur.isPresent()) {
                if (cur.get().rateBytesPerSec() < rate) {
                    load.updateRate(r.flow(), rate);
                }
            } else {
                track(r.flow(), rate, routes.placement(r.flow()).orElse(null));
            }
        }
        List<FlowMove> moves = rerouter.relieve(port, utilisation, nanoClock.getAsLong());
        if (moves.isEmpty()) {
            return List.of();
        }
        List<Reroute> done = new ArrayList<>(moves.size());
        for (FlowMove m : moves) {
            MacAddress src = m.from().src();
            MacAddress dst = m.from().dst();
            Optional<String> veto = guard.veto(m.flow(), src, dst, m.fromIndex(), m.toIndex(),
                    m.from().rateBytesPerSec());
            if (veto.isPresent()) {
                log.debug("Move of {} to path {} vetoed: {}", m.flow(), m.toIndex(), veto.get());
                load.place(m.flow(), m.from());
                continue;
            }
            try {
                routes.placeFlow(m.flow(), src, dst, m.toIndex());
            } catch (IllegalArgumentException | IllegalStateException e) {
                // Routes changed under the decision: put the flow back where it is.
                log.warn("Move of {} to path {} not applied: {}", m.flow(), m.toIndex(), e.getMessage());
                load.place(m.flow(), m.from());
                continue;
            }
            long latency = Math.max(0, (nanoClock.getAsLong() - receivedNanos) / 1000);
            Reroute r = new Reroute(m.flow(), port, m.fromIndex(), m.toIndex(), shadowMac(dst, m.toIndex()),
                    latency, System.currentTimeMillis());
            latencyMicros.accept(latency);
            reroutes.report(PlanckRerouteEvent.Type.FLOW_REROUTED, r);
            done.add(r);
        }
        return done;
    }

    /**
     * A collector's congestion notice (PLANCK mode): CLEARED lifts the port's mark; CONGESTED
     * relieves the port now on the node that acts (the leader), and only marks it elsewhere (the
     * utilisation is then used once, by the next relief of the port). The utilisation counts for
     * that decision only, and only the part of it the port's known flows do not account for: it
     * was measured at the moment the port's noisy load crossed the threshold, so it is biased
     * high, and kept as a floor it would make a port that stays busy look over-subscribed
     * until it clears, moving flow after flow off it.
     *
     * @param port          the port
     * @param congested     CONGESTED (true) or CLEARED
     * @param utilisation   the utilisation the collector measured, if any
     * @param act           whether this node moves flows (the leader)
     * @param receivedNanos when the notice was received
     * @return the reroutes applied
     */
    public List<Reroute> onNotice(ConnectPoint port, boolean congested, OptionalDouble utilisation, boolean act,
                                  long receivedNanos) {
        if (!congested) {
            clearCongested(port);
            return List.of();
        }
        if (mode != TeMode.PLANCK) {
            return List.of();
        }
        if (!act) {
            markCongested(port, utilisation);
            return List.of();
        }
        return relieve(port, utilisation, receivedNanos);
    }

    /**
     * Poll mode: takes measured port loads as a floor under the flow-rate view, relieves every
     * port over the threshold (marking it) and clears the marks of ports back under it.
     *
     * @param loads         polled loads by port
     * @param act           whether this node moves flows (the leader)
     * @param receivedNanos when the loads were read
     * @return the reroutes applied
     */
    public List<Reroute> onPortLoads(Map<ConnectPoint, PortLoad> loads, boolean act, long receivedNanos) {
        if (mode != TeMode.POLL) {
            return List.of();
        }
        reportMeasured(loads);
        List<Reroute> done = new ArrayList<>();
        for (PortLoad l : loads.values()) {
            ConnectPoint cp = l.port();
            double u = utilisation(cp);
            if (u > threshold) {
                // The relief weighs what was measured, not the view's demand-based estimate.
                OptionalDouble measuredNow = OptionalDouble.of(l.utilization());
                if (act) {
                    done.addAll(relieve(cp, measuredNow, receivedNanos));
                } else {
                    markCongested(cp, measuredNow);
                }
            } else if (isCongested(cp)) {
                clearCongested(cp);
            }
        }
        return done;
    }

    /**
     * PLANCK mode's check of the load view: relieves the given ports (e.g. ones a collector
     * reported congested) and every port over the threshold in the view, so flows whose damping
     * expired, or whose demand just became known, can move.
     *
     * @param alsoCongested ports to relieve besides those over the threshold
     * @param receivedNanos when the triggering telemetry was received
     * @return the reroutes applied
     */
    public List<Reroute> relieveOverloaded(Collection<ConnectPoint> alsoCongested, long receivedNanos) {
        if (mode != TeMode.PLANCK || !onPlan()) {
            return List.of();
        }
        Set<ConnectPoint> hot = new LinkedHashSet<>(alsoCongested);
        if (loadViewTriggers) {
            hot.addAll(load.portsAbove(threshold));
        }
        List<Reroute> done = new ArrayList<>();
        for (ConnectPoint cp : hot) {
            if (!load.anyFlowCanLeave(cp)) {
                // A host's own port: no path avoids it. Looked at again with every batch, such
                // ports were a third of the reliefs per batch in the lab's all-to-all workload.
                pinnedPortsSkipped++;
                continue;
            }
            done.addAll(relieve(cp, OptionalDouble.empty(), receivedNanos));
        }
        return done;
    }

    /**
     * Hot ports that {@link #relieveOverloaded} left alone because no flow on them has a path
     * that avoids them.
     *
     * @return count since the loop was created
     */
    public long pinnedPortsSkipped() {
        return pinnedPortsSkipped;
    }

    /**
     * Ports marked congested (by notices or polled loads) and not cleared.
     *
     * @return a copy
     */
    public Set<ConnectPoint> congestedPorts() {
        return new HashSet<>(congested);
    }

    /**
     * The rate the load view takes from a record: a low-confidence rate (sampled bytes x a
     * ratio measured on other flows, which a drop-tail mirror inflates for smooth flows) counts
     * as 0, so it never by itself puts a port over the threshold or makes its flow the one to move;
     * a collector's congestion notice still counts, as measured.
     */
    private static double actionableRate(FlowRecord r) {
        return r.lowConfidence() ? 0 : r.bytesPerSec();
    }

    private MacAddress shadowMac(MacAddress dst, int index) {
        return load.plan().tree(ShadowPathId.of(dst, index)).map(ShadowTree::shadowMac).orElse(MacAddress.NONE);
    }

    /**
     * Moves a flow to a path by hand.
     *
     * @param flow          the flow
     * @param pathIndex     target shadow path index
     * @param receivedNanos when the request was received
     * @return the reroute, as logged
     * @throws RerouteRejectedException unknown flow, index not one of its paths, or no routes
     */
    public Reroute reroute(FlowKey flow, int pathIndex, long receivedNanos) throws RerouteRejectedException {
        checkNotNull(flow, "flow");
        if (!onPlan()) {
            throw new RerouteRejectedException(NOT_ROUTED, "shadow routes are not in force");
        }
        Optional<FlowPlacement> cur = load.placement(flow);
        if (cur.isEmpty()) {
            double rate = -1;
            for (FlowRecord r : flowState.flows(flow)) {
                rate = Math.max(rate, r.bytesPerSec());
            }
            if (rate < 0) {
                throw new RerouteRejectedException(UNKNOWN_FLOW, "no live flow " + flow);
            }
            if (!track(flow, rate, routes.placement(flow).orElse(null))) {
                throw new RerouteRejectedException(UNKNOWN_FLOW, "hosts of flow " + flow + " are not routed");
            }
            cur = load.placement(flow);
        }
        FlowPlacement from = cur.orElseThrow();
        int paths = load.plan().trees(from.dst()).size();
        if (pathIndex < 0) {
            throw new RerouteRejectedException(PATH_OUT_OF_RANGE,
                    "path " + pathIndex + " out of range: the flow has paths 0.." + (paths - 1));
        }
        try {
            load.plan().flowRule(flow, from.src(), from.dst(), pathIndex);
        } catch (IllegalArgumentException e) {
            throw new RerouteRejectedException(PATH_OUT_OF_RANGE, "path " + pathIndex + " out of range for "
                    + flow + " (" + paths + " paths toward its destination): " + e.getMessage());
        }
        Optional<String> veto = guard.veto(flow, from.src(), from.dst(), from.pathIndex(), pathIndex,
                from.rateBytesPerSec());
        if (veto.isPresent()) {
            throw new RerouteRejectedException(RerouteRejectedException.Reason.GUARANTEE_AT_RISK, veto.get());
        }
        routes.placeFlow(flow, from.src(), from.dst(), pathIndex);
        load.place(flow, from.withPathIndex(pathIndex));
        rerouter.noteMoved(flow, nanoClock.getAsLong());
        long latency = Math.max(0, (nanoClock.getAsLong() - receivedNanos) / 1000);
        Reroute r = new Reroute(flow, null, from.pathIndex(), pathIndex, shadowMac(from.dst(), pathIndex), latency,
                System.currentTimeMillis());
        reroutes.report(PlanckRerouteEvent.Type.FLOW_REROUTED_MANUALLY, r);
        return r;
    }

    /**
     * Records polled port loads (Poll mode) as a floor under the flow-rate sums.
     *
     * @param loads polled loads by port
     */
    public void reportMeasured(Map<ConnectPoint, PortLoad> loads) {
        if (!onPlan()) {
            return;
        }
        for (PortLoad l : loads.values()) {
            if (load.reportPortLoad(l.port(), l.loadBps() / 8.0)) {
                measured.add(l.port());
            }
        }
    }

    /**
     * Forgets every measured port load (leaving Poll mode).
     */
    public void clearMeasured() {
        if (load != null) {
            measured.forEach(load::clearPortLoad);
        }
        measured.clear();
    }

    /**
     * Utilisation of a port in the load view (demand sum plus measured load no known flow
     * accounts for).
     *
     * @param port egress port
     * @return fraction of capacity, 0 for unknown ports or without a plan
     */
    public double utilisation(ConnectPoint port) {
        return onPlan() ? load.utilisation(port) : 0;
    }

    /**
     * Flows the load view tracks.
     *
     * @return count
     */
    public int trackedFlows() {
        return load == null ? 0 : load.flowCount();
    }

    /**
     * The path index a flow is on in the load view.
     *
     * @param flow the flow
     * @return index, or empty if not tracked
     */
    public Optional<Integer> pathIndex(FlowKey flow) {
        return load == null ? Optional.empty() : load.placement(flow).map(FlowPlacement::pathIndex);
    }

    /**
     * Removes every per-flow placement (entering Static mode): flows follow their hash default.
     *
     * @return placements removed
     */
    public int clearPlacements() {
        int n = 0;
        for (FlowKey f : routes.placements().keySet()) {
            if (routes.removeFlow(f)) {
                n++;
            }
        }
        if (onPlan()) {
            syncFlows();
        }
        return n;
    }
}
