package org.planck.app.te;

import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FlowMove;
import org.planck.api.fabric.FlowPlacement;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
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
    /** Scratch result of {@link #bestSlot}. */
    private double bestWorst;

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

    public double threshold() {
        return threshold;
    }

    public FabricLoad load() {
        return load;
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
        double need = need(p, reportedUtilisation.isPresent() ? reportedUtilisation.getAsDouble() * cap : 0);
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
                      String.format("%.1f", load.unexplained(p, reportedUtilisation.isPresent()
                              ? reportedUtilisation.getAsDouble() * cap : 0) / 1e6), sb);
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
            if (slot < 0) {
                continue;
            }
            FlowMove move = FlowMove.of(f.key, at, f.choices.indices[slot], bestWorst);
            load.moveTo(f, slot);
            f.moved = true;
            f.movedAt = nowNanos;
            f.moves++;
            need -= f.elephant ? demand : demand / threshold;
            moves.add(move);
        }
        return moves;
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
     * flows, and measured load no known flow accounts for) over the threshold, since a squeezed
     * flow's measured rate understates what it wants. Without elephants this is the classic test
     * "measured load over the threshold"; with them, a port whose elephants are all limited
     * elsewhere (by their receivers, say) is not relieved however hot it measures: each of them
     * already gets its share, and a move would cost it a window for nothing.
     */
    private double need(int p, double reportedBytesPerSec) {
        double elephants = 0;
        double measuredRates = load.unexplained(p, reportedBytesPerSec);
        for (FabricLoad.PlacedFlow f : load.flowsOnId(p)) {
            if (f.elephant) {
                elephants += f.demand;
            } else {
                measuredRates += f.demand;
            }
        }
        return elephants * (1 - DEMAND_SLACK) + measuredRates / threshold;
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
        double bestWorstAdded = Double.POSITIVE_INFINITY;
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
            if (ok && worstAdded > threshold) {
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
        for (int q : path) {
            if (q == port) {
                return true;
            }
        }
        return false;
    }
}
