package org.planck.app.inband.algo;

import com.google.common.collect.ImmutableList;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.inband.ConformanceStatus;
import org.planck.api.inband.FlowConformance;
import org.planck.api.inband.PintCounters;
import org.planck.api.telemetry.PintHopLatency;
import org.planck.api.telemetry.PintPathEvent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Per flow, the path PINT traced (latest {@code PINT_PATH}) and the flow's latest move, judged
 * against the path the routing plan puts it on:
 * <ul>
 * <li>traced = planned: {@code MOVED_CONFIRMED} if the trace arrived after the flow's latest
 * move, else {@code CONFORMING};</li>
 * <li>traced differs, or no trace yet: {@code MOVE_PENDING} for {@code confirmTimeoutMs} after
 * a move (the collector needs some packets of the new path to trace it), then
 * {@code NON_CONFORMING} (or {@code UNTRACED} if the flow was never traced);</li>
 * <li>no planned path: {@code UNPLANNED}.</li>
 * </ul>
 * The collector sends a path once per change, so a flow whose move did not take keeps its old
 * trace and turns non-conforming when the timeout passes. Verdicts are computed when asked, from
 * the plan of that moment; a change into {@code NON_CONFORMING} or {@code MOVED_CONFIRMED} is
 * reported once per episode as a {@link Transition} and counted. The table is bounded
 * ({@code maxFlows}: events of further flows are refused and counted) and flows idle for
 * {@code idleTimeoutMs} expire (counted). Thread-safe (one lock).
 */
public final class PathConformance {

    /** A flow's verdict changed into one that is reported. */
    public static final class Transition {
        private final ConformanceStatus from;
        private final FlowConformance verdict;

        Transition(ConformanceStatus from, FlowConformance verdict) {
            this.from = from;
            this.verdict = verdict;
        }

        /**
         * The previous verdict.
         *
         * @return status, null if the flow had none yet
         */
        public ConformanceStatus from() {
            return from;
        }

        public FlowConformance verdict() {
            return verdict;
        }
    }

    private static final class Entry {
        List<DeviceId> traced = ImmutableList.of();
        long tracedMillis = FlowConformance.NONE;
        long tracePackets = FlowConformance.NONE;
        long traces;
        long movedMillis = FlowConformance.NONE;
        int movedFrom = -1;
        int movedTo = -1;
        long moves;
        long lastMillis;
        ConformanceStatus reported;
        PintHopLatency[] hops;
    }

    private final int maxFlows;
    private final long idleTimeoutMs;
    private final long confirmTimeoutMs;
    private final Map<FlowKey, Entry> flows = new HashMap<>();
    private long paths;
    private long latencies;
    private long refused;
    private long expired;
    private long nonConforming;
    private long confirmed;

    /**
     * Creates an empty table.
     *
     * @param maxFlows         most flows kept, >= 1
     * @param idleTimeoutMs    a flow without traces, latencies or moves this long expires, > 0
     * @param confirmTimeoutMs how long a moved flow may go without a trace of its new path, > 0
     */
    public PathConformance(int maxFlows, long idleTimeoutMs, long confirmTimeoutMs) {
        checkArgument(maxFlows >= 1, "maxFlows must be >= 1");
        checkArgument(idleTimeoutMs > 0 && confirmTimeoutMs > 0, "timeouts must be > 0");
        this.maxFlows = maxFlows;
        this.idleTimeoutMs = idleTimeoutMs;
        this.confirmTimeoutMs = confirmTimeoutMs;
    }

    private Entry entry(FlowKey flow, long nowMillis) {
        Entry e = flows.get(flow);
        if (e == null) {
            if (flows.size() >= maxFlows) {
                refused++;
                return null;
            }
            e = new Entry();
            flows.put(flow, e);
        }
        e.lastMillis = Math.max(e.lastMillis, nowMillis);
        return e;
    }

    /**
     * Applies traced paths received at {@code nowMillis}, and judges their flows at once.
     *
     * @param events    PINT_PATH events, in batch order
     * @param nowMillis controller time of receipt
     * @param plan      the planned paths of now
     * @param out       where reported transitions go
     * @return events applied (the rest were refused at the table bound)
     */
    public synchronized int onPaths(List<PintPathEvent> events, long nowMillis, PlannedPaths plan,
                                    List<Transition> out) {
        int applied = 0;
        for (PintPathEvent p : events) {
            Entry e = entry(p.flow(), nowMillis);
            if (e == null) {
                continue;
            }
            e.traced = p.path();
            e.tracedMillis = nowMillis;
            e.tracePackets = p.packets();
            e.traces++;
            paths++;
            applied++;
        }
        for (PintPathEvent p : events) {
            Entry e = flows.get(p.flow());
            if (e != null) {
                judge(p.flow(), e, nowMillis, plan, out);
            }
        }
        return applied;
    }

    /**
     * Keeps the latest latency estimate per (flow, hop).
     *
     * @param events    PINT_HOP_LATENCY events
     * @param nowMillis controller time of receipt
     * @return events applied
     */
    public synchronized int onLatencies(List<PintHopLatency> events, long nowMillis) {
        int applied = 0;
        for (PintHopLatency l : events) {
            Entry e = entry(l.flow(), nowMillis);
            if (e == null) {
                continue;
            }
            if (e.hops == null) {
                e.hops = new PintHopLatency[PintPathEvent.MAX_HOPS];
            }
            e.hops[l.hop() - 1] = l;
            latencies++;
            applied++;
        }
        return applied;
    }

    /**
     * Records a move of a flow onto another shadow path (TE or manual).
     *
     * @param flow        the flow
     * @param from        path index before
     * @param to          path index after
     * @param movedMillis controller time the move was submitted
     * @return false if refused at the table bound
     */
    public synchronized boolean onMove(FlowKey flow, int from, int to, long movedMillis) {
        Entry e = entry(flow, movedMillis);
        if (e == null) {
            return false;
        }
        e.movedMillis = movedMillis;
        e.movedFrom = from;
        e.movedTo = to;
        e.moves++;
        // A new episode: its confirmation (or failure) is reported anew.
        e.reported = null;
        return true;
    }

    /**
     * Every flow's verdict now.
     *
     * @param nowMillis controller time
     * @param plan      the planned paths of now
     * @param out       where reported transitions go
     * @return verdicts
     */
    public synchronized List<FlowConformance> evaluateAll(long nowMillis, PlannedPaths plan, List<Transition> out) {
        List<FlowConformance> all = new ArrayList<>(flows.size());
        for (Map.Entry<FlowKey, Entry> e : flows.entrySet()) {
            all.add(judge(e.getKey(), e.getValue(), nowMillis, plan, out));
        }
        return all;
    }

    /**
     * One flow's verdict now.
     *
     * @param flow      the flow
     * @param nowMillis controller time
     * @param plan      the planned paths of now
     * @param out       where reported transitions go
     * @return verdict, empty if the flow has no PINT state
     */
    public synchronized Optional<FlowConformance> evaluate(FlowKey flow, long nowMillis, PlannedPaths plan,
                                                           List<Transition> out) {
        Entry e = flows.get(flow);
        return e == null ? Optional.empty() : Optional.of(judge(flow, e, nowMillis, plan, out));
    }

    /**
     * Removes flows idle for the idle timeout.
     *
     * @param nowMillis controller time
     * @return flows removed
     */
    public synchronized int expire(long nowMillis) {
        int n = 0;
        for (Iterator<Entry> it = flows.values().iterator(); it.hasNext(); ) {
            if (nowMillis - it.next().lastMillis >= idleTimeoutMs) {
                it.remove();
                n++;
            }
        }
        expired += n;
        return n;
    }

    /**
     * Counters.
     *
     * @return a snapshot
     */
    public synchronized PintCounters counters() {
        return new PintCounters(flows.size(), paths, latencies, refused, expired, nonConforming, confirmed);
    }

    private FlowConformance judge(FlowKey flow, Entry e, long now, PlannedPaths plan, List<Transition> out) {
        Optional<PlannedPath> planned = plan.plannedPath(flow);
        boolean moved = e.movedMillis != FlowConformance.NONE;
        boolean traced = e.tracedMillis != FlowConformance.NONE;
        boolean pending = moved && now - e.movedMillis < confirmTimeoutMs;
        ConformanceStatus status;
        long since;
        if (planned.isEmpty()) {
            status = ConformanceStatus.UNPLANNED;
            since = Math.max(e.tracedMillis, e.movedMillis);
        } else if (traced && e.traced.equals(planned.get().devices())) {
            boolean afterMove = moved && e.tracedMillis >= e.movedMillis;
            status = afterMove ? ConformanceStatus.MOVED_CONFIRMED : ConformanceStatus.CONFORMING;
            since = e.tracedMillis;
        } else if (pending) {
            status = ConformanceStatus.MOVE_PENDING;
            since = e.movedMillis;
        } else if (!traced) {
            status = ConformanceStatus.UNTRACED;
            since = moved ? e.movedMillis + confirmTimeoutMs : e.lastMillis;
        } else {
            status = ConformanceStatus.NON_CONFORMING;
            since = moved ? Math.max(e.tracedMillis, e.movedMillis + confirmTimeoutMs) : e.tracedMillis;
        }
        FlowConformance.Builder b = FlowConformance.builder(flow, status)
                .traced(e.traced, e.tracedMillis, e.tracePackets, e.traces)
                .moved(e.movedMillis, e.movedFrom, e.movedTo, e.moves)
                .statusSince(since);
        planned.ifPresent(p -> b.planned(p.index(), p.devices()));
        if (e.hops != null) {
            List<PintHopLatency> hops = new ArrayList<>();
            for (PintHopLatency l : e.hops) {
                if (l != null) {
                    hops.add(l);
                }
            }
            b.hopLatencies(hops);
        }
        FlowConformance verdict = b.build();
        boolean reportable = status == ConformanceStatus.NON_CONFORMING || status == ConformanceStatus.MOVED_CONFIRMED;
        if (reportable && e.reported != status) {
            if (status == ConformanceStatus.NON_CONFORMING) {
                nonConforming++;
            } else {
                confirmed++;
            }
            out.add(new Transition(e.reported, verdict));
        }
        if (reportable || status == ConformanceStatus.CONFORMING) {
            e.reported = status;
        }
        return verdict;
    }
}
