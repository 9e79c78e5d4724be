package org.planck.lab.experiment;

import com.google.common.collect.ImmutableList;
import org.planck.api.te.Reroute;
import org.planck.lab.control.LoopLatencyLog;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What one (workload, mode) run produced.
 */
public final class RunResult {
    private final Workload workload;
    private final RoutingMode mode;
    private final long linkBps;
    private final List<FlowResult> flows;
    private final List<LoopLatencyLog.Entry> decisions;
    private final long moves;
    private final long notices;
    private final long maxLagUs;
    private final long unmatched;
    private final long mirrorFrames;
    private final long mirrorDrops;
    private final List<Reroute> moveLog;

    /**
     * A result.
     *
     * @param workload     workload
     * @param mode         routing mode
     * @param linkBps      link rate
     * @param flows        finished flows
     * @param decisions    TE decisions with their loop times
     * @param moves        flows moved
     * @param notices      congestion notices received
     * @param maxLagUs     largest lag of the emulator behind real time
     * @param unmatched    packets no rule matched
     * @param mirrorFrames mirror frames written
     * @param mirrorDrops  packets the mirror ports dropped
     * @param moveLog      every move TE decided, oldest first
     */
    public RunResult(Workload workload, RoutingMode mode, long linkBps, List<FlowResult> flows,
                     List<LoopLatencyLog.Entry> decisions, long moves, long notices, long maxLagUs,
                     long unmatched, long mirrorFrames, long mirrorDrops, List<Reroute> moveLog) {
        this.workload = workload;
        this.mode = mode;
        this.linkBps = linkBps;
        this.flows = ImmutableList.copyOf(flows);
        this.decisions = ImmutableList.copyOf(decisions);
        this.moves = moves;
        this.notices = notices;
        this.maxLagUs = maxLagUs;
        this.unmatched = unmatched;
        this.mirrorFrames = mirrorFrames;
        this.mirrorDrops = mirrorDrops;
        this.moveLog = ImmutableList.copyOf(moveLog);
    }

    /**
     * Several runs of one workload and mode (different seeds) as one: their flows, decisions and
     * moves together, counts summed, the largest lag.
     *
     * @param runs at least one, all of the same workload, mode and link rate
     * @return the pooled result (the run itself if only one)
     */
    public static RunResult pooled(List<RunResult> runs) {
        checkArgument(!runs.isEmpty(), "no runs to pool");
        RunResult first = runs.get(0);
        if (runs.size() == 1) {
            return first;
        }
        List<FlowResult> flows = new ArrayList<>();
        List<LoopLatencyLog.Entry> decisions = new ArrayList<>();
        List<Reroute> moveLog = new ArrayList<>();
        long moves = 0;
        long notices = 0;
        long maxLag = 0;
        long unmatched = 0;
        long frames = 0;
        long drops = 0;
        for (RunResult r : runs) {
            checkArgument(r.workload == first.workload && r.mode == first.mode && r.linkBps == first.linkBps,
                          "pooling runs of different experiments");
            flows.addAll(r.flows);
            decisions.addAll(r.decisions);
            moveLog.addAll(r.moveLog);
            moves += r.moves;
            notices += r.notices;
            maxLag = Math.max(maxLag, r.maxLagUs);
            unmatched += r.unmatched;
            frames += r.mirrorFrames;
            drops += r.mirrorDrops;
        }
        return new RunResult(first.workload, first.mode, first.linkBps, flows, decisions, moves, notices, maxLag,
                             unmatched, frames, drops, moveLog);
    }

    /**
     * Every move TE decided in the run, oldest first.
     *
     * @return moves
     */
    public List<Reroute> moveLog() {
        return moveLog;
    }

    public Workload workload() {
        return workload;
    }

    public RoutingMode mode() {
        return mode;
    }

    public long linkBps() {
        return linkBps;
    }

    public List<FlowResult> flows() {
        return flows;
    }

    public List<LoopLatencyLog.Entry> decisions() {
        return decisions;
    }

    public long moves() {
        return moves;
    }

    public long notices() {
        return notices;
    }

    public long maxLagUs() {
        return maxLagUs;
    }

    public long unmatched() {
        return unmatched;
    }

    public long mirrorFrames() {
        return mirrorFrames;
    }

    public long mirrorDrops() {
        return mirrorDrops;
    }

    /**
     * Flow throughputs, ascending.
     *
     * @return bits per second
     */
    public double[] sortedThroughputs() {
        double[] t = flows.stream().mapToDouble(FlowResult::throughputBps).toArray();
        Arrays.sort(t);
        return t;
    }

    /**
     * Mean flow throughput.
     *
     * @return bits per second, 0 without flows
     */
    public double meanThroughputBps() {
        return Arrays.stream(sortedThroughputs()).average().orElse(0);
    }

    /**
     * Median flow throughput (mean of the middle two for even counts).
     *
     * @return bits per second, 0 without flows
     */
    public double medianThroughputBps() {
        double[] t = sortedThroughputs();
        if (t.length == 0) {
            return 0;
        }
        int m = t.length / 2;
        return t.length % 2 == 1 ? t[m] : (t[m - 1] + t[m]) / 2;
    }
}
