package org.planck.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * Companion of {@link AdmissionBenchmark} for shared, overloaded machines: runs the same
 * decisions and reports percentiles of each decision's thread CPU time next to its wall time,
 * so the decision's own cost can be told apart from time the thread spent descheduled.
 * {@code java -cp bench/target/benchmarks.jar org.planck.bench.AdmissionCpuTime [decisions]}.
 */
public final class AdmissionCpuTime {
    private AdmissionCpuTime() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        AdmissionBenchmark bench = new AdmissionBenchmark();
        bench.admitted = 1000;
        bench.admitFlows();
        for (int i = 0; i < 5000; i++) {
            bench.decideOneRequest(); // JIT warm-up
        }
        long[] cpu = new long[n];
        long[] wall = new long[n];
        for (int i = 0; i < n; i++) {
            long w0 = System.nanoTime();
            long c0 = mx.getCurrentThreadCpuTime();
            bench.decideOneRequest();
            cpu[i] = mx.getCurrentThreadCpuTime() - c0;
            wall[i] = System.nanoTime() - w0;
        }
        Arrays.sort(cpu);
        Arrays.sort(wall);
        System.out.printf("%d decisions: CPU time p50 %.0f us, p99 %.0f us, max %.0f us; wall p50 %.0f us, "
                        + "p99 %.0f us, max %.0f us%n", n, cpu[n / 2] / 1e3, cpu[(int) (n * 0.99)] / 1e3,
                cpu[n - 1] / 1e3, wall[n / 2] / 1e3, wall[(int) (n * 0.99)] / 1e3, wall[n - 1] / 1e3);
    }
}
