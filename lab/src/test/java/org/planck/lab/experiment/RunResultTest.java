package org.planck.lab.experiment;

import org.junit.Test;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.fail;

/** Pooling the runs of one workload and mode made with different seeds. */
public class RunResultTest {
    private static final long GBPS = 1_000_000_000L;

    private static FlowResult flow(long seed, long id, long micros) {
        // 125 MB in `micros` µs.
        return new FlowResult(seed, id, "00:00:00:00:00:01", "00:00:00:00:00:02", 125_000_000L, 0, micros, 0, 0);
    }

    private static RunResult run(RoutingMode mode, long lagUs, FlowResult... flows) {
        return new RunResult(Workload.STRIDE8, mode, GBPS, List.of(flows), List.of(), 3, 10, lagUs, 1, 100, 7,
                             List.of());
    }

    private static void rejects(Runnable r) {
        try {
            r.run();
            fail("accepted");
        } catch (IllegalArgumentException expected) {
            // the point
        }
    }

    @Test
    public void pooledRunsHoldEveryFlowAndAddUpTheirCounts() {
        RunResult a = run(RoutingMode.PLANCK, 500, flow(1, 1, 1_000_000), flow(1, 2, 2_000_000));
        RunResult b = run(RoutingMode.PLANCK, 900, flow(2, 1, 4_000_000));
        RunResult p = RunResult.pooled(List.of(a, b));
        assertEquals(3, p.flows().size());
        assertEquals(List.of(1L, 1L, 2L), p.flows().stream().map(FlowResult::seed).collect(Collectors.toList()));
        // Flows of both runs count alike: (1000 + 500 + 250) / 3 Mb/s.
        assertEquals((1000 + 500 + 250) / 3.0 * 1e6, p.meanThroughputBps(), 1e-3);
        assertEquals(500e6, p.medianThroughputBps(), 1e-3);
        assertEquals(6, p.moves());
        assertEquals(20, p.notices());
        assertEquals(900, p.maxLagUs());
        assertEquals(2, p.unmatched());
        assertEquals(200, p.mirrorFrames());
        assertEquals(14, p.mirrorDrops());
        assertSame(a, RunResult.pooled(List.of(a)));
    }

    @Test
    public void onlyRunsOfOneExperimentPool() {
        RunResult a = run(RoutingMode.PLANCK, 0, flow(1, 1, 1_000_000));
        RunResult b = run(RoutingMode.POLL, 0, flow(2, 1, 1_000_000));
        rejects(() -> RunResult.pooled(List.of(a, b)));
        rejects(() -> RunResult.pooled(List.of()));
        rejects(() -> new ExperimentRunner.Options().repeats(0));
        rejects(() -> new ExperimentRunner.Options().repeats(11));
    }
}
