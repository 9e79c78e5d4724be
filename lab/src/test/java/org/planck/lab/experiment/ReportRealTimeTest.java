package org.planck.lab.experiment;

import org.junit.Test;

import java.util.List;

import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/**
 * The report's line on whether the fabric kept real time.
 */
public class ReportRealTimeTest {
    private static RunResult run(Workload w, RoutingMode m, long maxLagUs) {
        return new RunResult(w, m, 1_000_000_000L, List.of(), List.of(), 0, 0, maxLagUs, 0, 0, 0, List.of());
    }

    @Test
    public void runsWithinTheLimitAreReportedAsKept() {
        String line = Report.realTimeLine(List.of(run(Workload.STRIDE8, RoutingMode.STATIC, 400),
                                                  run(Workload.STRIDE8, RoutingMode.PLANCK, 1000)));
        assertTrue(line, line.contains("**kept**"));
    }

    @Test
    public void runsBehindNameTheCountTheWorstAndTheMedian() {
        String line = Report.realTimeLine(List.of(run(Workload.STRIDE8, RoutingMode.STATIC, 500),
                                                  run(Workload.SHUFFLE, RoutingMode.POLL, 968_560),
                                                  run(Workload.RANDOM, RoutingMode.PLANCK, 45_000)));
        assertTrue(line, line.contains("**not kept in 2 of 3 runs**"));
        assertTrue(line, line.contains("up to 968.6 ms (shuffle / Poll-100ms"));
        assertTrue(line, line.contains("largest lag 45.0 ms"));
    }

    @Test
    public void noRunsNoLine() {
        assertNull(Report.realTimeLine(List.of()));
    }
}
