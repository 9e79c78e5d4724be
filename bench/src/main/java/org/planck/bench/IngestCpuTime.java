package org.planck.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Companion of {@link IngestBenchmark} for shared, overloaded machines: runs the same
 * ingest path and reports events per CPU-second of the ingesting thread next to wall-clock
 * events per second, so a figure "on one core" is meaningful when the thread does not get
 * a whole core. Run with the --add-opens flags of IngestBenchmark's fork:
 * {@code java --add-opens java.base/java.lang=ALL-UNNAMED ... -cp bench/target/benchmarks.jar
 * org.planck.bench.IngestCpuTime [rounds]}.
 */
public final class IngestCpuTime {
    private IngestCpuTime() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        IngestBenchmark bench = new IngestBenchmark();
        bench.setUp();
        int batchesPerRound = 10;
        long events = (long) batchesPerRound * org.planck.api.telemetry.TelemetryBatch.MAX_EVENTS;
        for (int r = 0; r < rounds; r++) {
            long wall0 = System.nanoTime();
            long cpu0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < batchesPerRound; i++) {
                bench.ingestBatch();
            }
            double wall = (System.nanoTime() - wall0) / 1e9;
            double cpu = (mx.getCurrentThreadCpuTime() - cpu0) / 1e9;
            System.out.printf("round %2d: %,.0f events/s wall, %,.0f events per CPU-second%n",
                    r, events / wall, events / cpu);
        }
        bench.tearDown();
        System.exit(0);
    }
}
