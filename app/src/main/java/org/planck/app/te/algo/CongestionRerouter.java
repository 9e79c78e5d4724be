package org.planck.app.te.algo;

import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FlowMove;
import org.planck.api.fabric.FlowPlacement;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.OptionalDouble;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * PlanckTE's decision: on congestion of a port, take the flows on it largest demand first and
 * move each to the alternate shadow path that minimises the maximum utilisation along that path
 * under the current demands ({@link FabricLoad}: measured rates, and fair shares for elephants,
 * plus measured port load that no known flow accounts for), until the port no longer needs
 * relief: until what its flows want ({@link #need}: elephants' demands, measured rates over the
 * threshold) fits its capacity. A port measured hot whose elephants are all limited elsewhere
 * (by their receivers, say) needs none: moving them would cost each a window and gain nothing.
 *
 * <p>Ties in the maximum are broken by the maximum over the ports the move adds load to, then
 * by the lower path index. A candidate path is rejected if it crosses the congested port itself
 * or would add the flow to a port that is marked congested. It is taken only if the move pays:
 * the ports it adds the flow to stay within the threshold, or their highest utilisation after
 * the move is at least {@link #MIN_GAIN} below the highest utilisation among the ports the flow
 * leaves (ports shared with the current path gain nothing and are not held against it). The
 * second rule lets TE pull apart elephants on a saturated fabric, where no move fits under the
 * threshold, and it makes every move lower the largest utilisation it touches, so a sequence of
 * moves cannot cycle. A flow moved less than the damping interval ago stays put; the interval
 * doubles with each further move of the flow (at most 8x). Accepted moves
 * are applied to the {@link FabricLoad} at once, so later choices in the same decision see them.</p>
 *
 * <p>Cost per decision: the flows on the port are sorted by demand; each is tried against at most
 * k-1 alternatives of a few ports each. Nothing scans all flows. Not thread-safe.</p>
 */
public final class CongestionRerouter {
    /**
     * The least drop in peak utilisation (fraction of capacity) a move must bring when it does not
     * fit under the threshold. A move reorders the flow's packets in flight, which costs TCP a
     * window; smaller gains are not worth it (with 0.05 the lab's shuffle workload made twice the
     * moves for less throughput).
     */
    public static final double MIN_GAIN = 0.2;
    /**
     * Elephants' demands are estimates: they count at 95 %, so shares that exactly fill a port
     * (three flows to one receiver: a third each), plus the noise between a port's measured load
     * and its flows' measured rates, do not make it look over-subscribed.
     */
    static final double DEMAND_SLACK = 0.05;
    /** A flow's damping doubles with each move after its first, at most this many times. */
    public static final int MAX_DAMPING_DOUBLINGS = 3;
    private static final Comparator<FlowKey> KEY_ORDER = Comparator
            .comparing(FlowKey::src).thenComparing(FlowKey::dst).thenComparingInt(FlowKey::proto)
            .thenComparingInt(FlowKey::srcPort).thenComparingInt(FlowKey::dstPort);
    /** Largest demand first; equal demands in a fixed key order so decisions are deterministic. */
    private static final Comparator<FabricLoad.PlacedFlow> LARGEST_FIRST = (a, b) -> {
        int c = Double.compare(b.demand, a.demand);
        return c != 0 ? c : KEY_ORDER.compare(a.key, b.key);
    };

    private static final Logger log = LoggerFactory.getLogger(CongestionRerouter.class);

    private final FabricLoad load;
    private double threshold;
    private long dampingNanos;
    /** Scratch results of {@link #bestSlot}: peak along the path, peak over the ports it adds to. */
    private double bestWorst;
    private double bestWorstAdded;

    /**
     * A rerouter.
     *
     * @param load         flow placements and port loads
     * @param threshold    congestion threshold as a fraction of port capacity, (0, 1]
     * @param dampingNanos minimum time between two moves of one flow, nanoseconds, non-negative
     */
    public CongestionRerouter(FabricLoad load, double threshold, long dampingNanos) {
        this.load = checkNotNull(load, "load");
        configure(threshold, dampingNanos);
    }

    /**
     * Changes the threshold and damping interval (new config).
     *
     * @param threshold    fraction of capacity, (0, 1]
     * @param dampingNanos nanoseconds, non-negative
     */
    public void configure(double threshold, long dampingNanos) {
        checkArgument(threshold > 0 && threshold <= 1, "threshold must be in (0, 1]: %s", threshold);
        checkArgument(dampingNanos >= 0, "damping must be non-negative: %s", dampingNanos);
        this.threshold = threshold;
        this.dampingNanos = dampingNanos;
    }

    /**
     * Marks a port congested (a CONGESTED notice): no flow is moved onto it until cleared.
     *
     * @param port egress port
     */
    public void markCongested(ConnectPoint port) {
        load.markCongested(port);
    }

    /**
     * Clears a port's congestion mark (a CLEARED notice).
     *
     * @param port egress port
     */
    public void clearCongested(ConnectPoint port) {
        load.clearCongested(port);
    }

    /**
     * Whether a port is marked congested.
     *
     * @param port egress port
     * @return true if marked
     */
    public boolean isCongested(ConnectPoint port) {
        return load.isCongested(port);
    }

    /**
     * Records a move made outside this decision (manual reroute), so damping applies to it.
     *
     * @param flow      the flow
     * @param nowNanos  time of the move
     */
    public void noteMoved(FlowKey flow, long nowNanos) {
        FabricLoad.PlacedFlow f = load.placed(flow);
        if (f != null) {
            f.moved = true;
            f.movedAt = nowNanos;
            f.moves++;
        }
    }

    /**
     * Forgets a flow's damping state (flow expired).
     *
     * @param flow the flow
     */
    public void forget(FlowKey flow) {
        FabricLoad.PlacedFlow f = load.placed(flow);
        if (f != null) {
            f.moved = false;
            f.moves = 0;
        }
    }

    /**
     * Decides the moves that relieve a congested port and applies them to the load view. A port
     * with a reported (measured) utilisation is marked congested; a relief on the load-view
     * estimate alone leaves no mark. The caller installs one per-flow ingress rule per move.
     *
     * @param port                 the congested egress port
     * @param reportedUtilisation  the utilisation the collector measured, if any: what of it the
     *                             port's known flows do not account for adds to their demands
     * @param nowNanos             decision time (monotonic), for damping
     * @return moves in decision order; empty if the port is unknown, needs no relief or
     *         nothing can move
     */
    public List<FlowMove> relieve(ConnectPoint port, OptionalDouble reportedUtilisation, long nowNanos) {
        int p = load.portId(port);
        if (p < 0) {
            return List.of();
        }
        if (reportedUtilisation.isPresent()) {
            load.markCongested(p);
        }
        double cap = load.capacity(p);
        double reported = reportedUtilisation.isPresent() ? reportedUtilisation.getAsDouble() * cap : 0;
        double need = need(p, reported);
        if (need <= cap) {
            return List.of();
        }
        FabricLoad.PlacedFlow[] candidates = load.flowsOnId(p).toArray(new FabricLoad.PlacedFlow[0]);
        Arrays.sort(candidates, LARGEST_FIRST);
        if (log.isDebugEnabled()) {
            StringBuilder sb = new StringBuilder();
            for (FabricLoad.PlacedFlow f : candidates) {
                sb.append(String.format(" %s>%s%s:%.0f/%.0f", f.key.src(), f.key.dst(), f.elephant ? "E" : "",
                                        f.demand / 1e6, f.placement.rateBytesPerSec() / 1e6));
            }
            log.debug("relieve {}: need {} of {} MB/s, unexplained {};{}", port, String.format("%.1f", need / 1e6),
                      String.format("%.1f", cap / 1e6),
                      String.format("%.1f", load.unexplained(p, reported) / 1e6), sb);
        }
        List<FlowMove> moves = new ArrayList<>();
        for (FabricLoad.PlacedFlow f : candidates) {
            if (need <= cap) {
                break;
            }
            if (damped(f, nowNanos)) {
                continue;
            }
            FlowPlacement at = f.placement;
            double demand = f.demand;
            if (demand <= 0) {
                continue;
            }
            int slot = bestSlot(f, p);
            if (f.elephant && (slot < 0 || bestWorstAdded > fitLimit(f))) {
                // No path takes it within the threshold: maybe one does once another elephant
                // steps aside onto a path that has room for it.
                List<FlowMove> chain = displace(f, p, nowNanos);
                if (!chain.isEmpty()) {
                    // Every flow of the chain that left the congested port relieves it.
                    for (FlowMove m : chain) {
                        FabricLoad.PlacedFlow moved = load.placed(m.flow());
                        if (moved != null && !contains(moved.path, p) && onPort(m, p)) {
                            need -= share(moved);
                        }
                    }
                    moves.addAll(chain);
                    continue;
                }
            }
            if (slot < 0) {
                continue;
            }
            FlowMove move = FlowMove.of(f.key, at, f.choices.indices[slot], bestWorst);
            load.moveTo(f, slot);
            noteMove(f, nowNanos);
            need -= share(f);
            moves.add(move);
        }
        return moves;
    }

    /**
     * The utilisation up to which a port takes a flow: an elephant's demand is what it would
     * take, so a port it fills to capacity fits it; another flow's measured rate may understate
     * what it wants, so its port must stay within the threshold.
     */
    private double fitLimit(FabricLoad.PlacedFlow f) {
        return f.elephant ? Math.max(threshold, 1 + 1e-9) : threshold;
    }

    /** What a flow adds to a port's {@link #need}. */
    private double share(FabricLoad.PlacedFlow f) {
        return f.elephant ? f.demand * (1 - DEMAND_SLACK) : f.demand / threshold;
    }

    /** Whether the path a move left crossed the port. */
    private boolean onPort(FlowMove m, int port) {
        FlowPlacement from = m.from();
        return contains(load.path(from.src(), from.dst(), from.pathIndex()), port);
    }

    private static void noteMove(FabricLoad.PlacedFlow f, long nowNanos) {
        f.moved = true;
        f.movedAt = nowNanos;
        f.moves++;
    }

    /**
     * A path for {@code f} that has room for it once other elephants step aside, each onto a
     * path with room for it, at most {@link #MAX_DISPLACED} of them in a chain (as a Kempe chain
     * recolours a graph). Greedy single moves get stuck where every alternative already carries
     * one elephant; a random bijection on a fat tree leaves several such pairs. Every port a
     * flow of the chain joins ends within its fit limit, so the chain strictly relieves the
     * congested port and loads nothing beyond what it carries.
     *
     * @return the chain's moves, last displaced first and f's last, applied to the load view;
     *         empty (and nothing changed) if none is found
     */
    private List<FlowMove> displace(FabricLoad.PlacedFlow f, int congestedPort, long nowNanos) {
        List<Undo> undo = new ArrayList<>();
        List<FlowMove> out = new ArrayList<>();
        Set<FabricLoad.PlacedFlow> chain = new HashSet<>();
        if (fit(f, MAX_DISPLACED, congestedPort, nowNanos, chain, out, undo)) {
            return out;
        }
        return List.of();
    }

    /** The most elephants one relief may displace to make room for one flow. */
    static final int MAX_DISPLACED = 3;

    /** What a tentative move changed, to take it back. */
    private static final class Undo {
        final FabricLoad.PlacedFlow flow;
        final int slot;
        final boolean moved;
        final long movedAt;
        final int moves;

        Undo(FabricLoad.PlacedFlow flow, int slot) {
            this.flow = flow;
            this.slot = slot;
            this.moved = flow.moved;
            this.movedAt = flow.movedAt;
            this.moves = flow.moves;
        }
    }

    /**
     * Moves {@code f} to an alternative (not through {@code barred}, nor onto a port marked
     * congested) where it fits. If none has room, f takes an alternative anyway and the
     * elephants in its way step aside, each fitted the same way with {@code depth - 1}: they
     * see f already gone from its old path, so two flows can swap. On success the moves are
     * applied and appended to {@code out}; on failure everything tried is taken back.
     */
    private boolean fit(FabricLoad.PlacedFlow f, int depth, int barred, long nowNanos,
                        Set<FabricLoad.PlacedFlow> chain, List<FlowMove> out, List<Undo> undo) {
        chain.add(f);
        FabricLoad.RouteChoices choices = f.choices;
        for (int pass = 0; pass < 2; pass++) {
            // Paths with room first; then, with depth left, paths whose blockers can step aside.
            for (int c = 0; c < choices.indices.length; c++) {
                if (choices.indices[c] == f.placement.pathIndex()) {
                    continue;
                }
                int[] alt = choices.paths[c];
                int blocked = blockedPort(f, alt, barred);
                if (blocked == BARRED || (pass == 0) != (blocked < 0)) {
                    continue;
                }
                if (pass == 0) {
                    apply(f, c, nowNanos, out, undo);
                    chain.remove(f);
                    return true;
                }
                if (depth == 0) {
                    break;
                }
                if (!everyOverfullPortHasABlocker(f, alt, chain, nowNanos)) {
                    continue;
                }
                int outMark = out.size();
                int undoMark = undo.size();
                int[] from = f.path;
                apply(f, c, nowNanos, out, undo);
                if (clearWay(f, alt, from, depth, nowNanos, chain, out, undo)) {
                    // f's own move goes last, after the moves that made room for it.
                    out.add(out.remove(outMark));
                    chain.remove(f);
                    return true;
                }
                rollback(out, outMark, undo, undoMark);
            }
        }
        chain.remove(f);
        return false;
    }

    /** Whether each port of alt that f would overfill holds an elephant that might step aside. */
    private boolean everyOverfullPortHasABlocker(FabricLoad.PlacedFlow f, int[] alt,
                                                 Set<FabricLoad.PlacedFlow> chain, long nowNanos) {
        for (int q : alt) {
            if (contains(f.path, q) || (load.load(q) + f.demand) / load.capacity(q) <= fitLimit(f)) {
                continue;
            }
            boolean any = false;
            for (FabricLoad.PlacedFlow g : load.flowsOnId(q)) {
                if (g != f && g.elephant && g.demand > 0 && !chain.contains(g) && !damped(g, nowNanos)) {
                    any = true;
                    break;
                }
            }
            if (!any) {
                return false;
            }
        }
        return true;
    }

    /** Fits, one at a time, elephants off every port f joined that is over its fit limit. */
    private boolean clearWay(FabricLoad.PlacedFlow f, int[] alt, int[] from, int depth, long nowNanos,
                             Set<FabricLoad.PlacedFlow> chain, List<FlowMove> out, List<Undo> undo) {
        for (int q : alt) {
            if (contains(from, q)) {
                continue;
            }
            while (load.load(q) / load.capacity(q) > fitLimit(f)) {
                boolean stepped = false;
                FabricLoad.PlacedFlow[] blockers = load.flowsOnId(q).toArray(new FabricLoad.PlacedFlow[0]);
                Arrays.sort(blockers, LARGEST_FIRST);
                for (FabricLoad.PlacedFlow g : blockers) {
                    if (chain.contains(g) || !g.elephant || g.demand <= 0 || damped(g, nowNanos)) {
                        continue;
                    }
                    if (fit(g, depth - 1, -1, nowNanos, chain, out, undo)) {
                        stepped = true;
                        break;
                    }
                }
                if (!stepped) {
                    return false;
                }
            }
        }
        return true;
    }

    private static final int BARRED = -2;

    /**
     * The first port of {@code alt} that the move of f adds it to and that cannot take it, -1
     * if every one can, or {@link #BARRED} if the path crosses {@code barred} or adds f to a
     * port marked congested.
     */
    private int blockedPort(FabricLoad.PlacedFlow f, int[] alt, int barred) {
        int blocked = -1;
        for (int q : alt) {
            if (q == barred) {
                return BARRED;
            }
            if (contains(f.path, q)) {
                continue;
            }
            if (load.congested(q)) {
                return BARRED;
            }
            if (blocked < 0 && (load.load(q) + f.demand) / load.capacity(q) > fitLimit(f)) {
                blocked = q;
            }
        }
        return blocked;
    }

    private void apply(FabricLoad.PlacedFlow f, int slot, long nowNanos, List<FlowMove> out, List<Undo> undo) {
        int from = -1;
        for (int c = 0; c < f.choices.indices.length; c++) {
            if (f.choices.indices[c] == f.placement.pathIndex()) {
                from = c;
            }
        }
        undo.add(new Undo(f, from));
        double peak = 0;
        for (int q : f.choices.paths[slot]) {
            peak = Math.max(peak, (load.load(q) + (contains(f.path, q) ? 0 : f.demand)) / load.capacity(q));
        }
        out.add(FlowMove.of(f.key, f.placement, f.choices.indices[slot], peak));
        load.moveTo(f, slot);
        noteMove(f, nowNanos);
    }

    /** Takes back the tentative moves made since the marks, newest first. */
    private void rollback(List<FlowMove> out, int outMark, List<Undo> undo, int undoMark) {
        for (int i = undo.size() - 1; i >= undoMark; i--) {
            Undo u = undo.remove(i);
            load.moveTo(u.flow, u.slot);
            u.flow.moved = u.moved;
            u.flow.movedAt = u.movedAt;
            u.flow.moves = u.moves;
        }
        out.subList(outMark, out.size()).clear();
    }

    /**
     * Whether a flow moved too recently to move again: the damping interval after its first
     * move, doubling with each further move up to {@value #MAX_DAMPING_DOUBLINGS} doublings
     * (route-flap damping). On a saturated fabric, where every move relieves one port by loading
     * another, a flow would otherwise be passed from path to path every interval, losing a
     * window each time.
     */
    private boolean damped(FabricLoad.PlacedFlow f, long nowNanos) {
        if (!f.moved) {
            return false;
        }
        long damping = dampingNanos << Math.min(Math.max(f.moves - 1, 0), MAX_DAMPING_DOUBLINGS);
        return nowNanos - f.movedAt < damping;
    }

    /**
     * What a port's flows want of it, to compare with its capacity: the elephants' demands, which
     * are what they would take (fair shares of their hosts' links), plus measured rates (other
     * flows, and measured load no known flow accounts for, up to what the elephants leave free)
     * over the threshold, since a squeezed flow's measured rate understates what it wants. Without elephants this is the classic test
     * "measured load over the threshold"; with them, a port whose elephants are all limited
     * elsewhere (by their receivers, say) is not relieved however hot it measures: each of them
     * already gets its share, and a move would cost it a window for nothing.
     */
    private double need(int p, double reportedBytesPerSec) {
        double elephants = 0;
        double measuredRates = 0;
        for (FabricLoad.PlacedFlow f : load.flowsOnId(p)) {
            if (f.elephant) {
                elephants += f.demand;
            } else {
                measuredRates += f.demand;
            }
        }
        // Load no known flow accounts for can only be using what the elephants' demands leave
        // of the port; beyond that it is the elephants themselves, measured high (a noisy
        // window, a flow whose move the fabric has not applied yet).
        double unexplained = Math.min(load.unexplained(p, reportedBytesPerSec),
                                      Math.max(0, load.capacity(p) - elephants));
        return elephants * (1 - DEMAND_SLACK) + (measuredRates + unexplained) / threshold;
    }

    /**
     * The slot of the alternative minimising the maximum utilisation along its path, or -1;
     * its maximum utilisation is left in {@link #bestWorst}.
     */
    private int bestSlot(FabricLoad.PlacedFlow f, int congestedPort) {
        FlowPlacement at = f.placement;
        int[] cur = f.path;
        double rate = f.demand;
        FabricLoad.RouteChoices choices = f.choices;
        int bestSlot = -1;
        bestWorst = Double.POSITIVE_INFINITY;
        bestWorstAdded = Double.POSITIVE_INFINITY;
        for (int c = 0; c < choices.indices.length; c++) {
            int index = choices.indices[c];
            if (index == at.pathIndex()) {
                continue;
            }
            int[] alt = choices.paths[c];
            double worst = 0;
            double worstAdded = 0;
            boolean ok = true;
            for (int q : alt) {
                if (q == congestedPort) {
                    ok = false;
                    break;
                }
                boolean shared = contains(cur, q);
                double after = load.load(q) + (shared ? 0 : rate);
                double util = after / load.capacity(q);
                if (!shared && load.congested(q)) {
                    ok = false;
                    break;
                }
                worst = Math.max(worst, util);
                if (!shared) {
                    worstAdded = Math.max(worstAdded, util);
                }
            }
            if (ok && worstAdded > fitLimit(f)) {
                // Over the threshold: only worth it if it lowers the peak among the ports left.
                double worstLeft = 0;
                for (int q : cur) {
                    if (!contains(alt, q)) {
                        worstLeft = Math.max(worstLeft, load.load(q) / load.capacity(q));
                    }
                }
                ok = worstAdded <= worstLeft - MIN_GAIN;
            }
            // Ports common to the alternatives (e.g. the destination's host port) can tie the
            // maximum; the ports the move adds load to break the tie, then the lower index.
            if (ok && (worst < bestWorst || (worst == bestWorst && worstAdded < bestWorstAdded))) {
                bestWorst = worst;
                bestWorstAdded = worstAdded;
                bestSlot = c;
            }
        }
        return bestSlot;
    }

    private static boolean contains(int[] path, int port) {
        return FabricLoad.contains(path, port);
    }
}
