package org.planck.lab.experiment;

import org.planck.api.inband.ConformanceStatus;
import org.planck.api.inband.FlowConformance;
import org.planck.api.inband.PintCounters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The controller's PINT path-conformance view at the end of each PlanckTE run with PINT on:
 * {@code pint-conformance.csv} (one row per flow the controller traced or moved) and
 * {@code pint-conformance.md} (per run: how many moved flows were traced on their new path,
 * and how long after the move, in ms and in the packets the trace took).
 */
public final class PintConformanceLog {
    /** The CSV file. */
    public static final String CSV = "pint-conformance.csv";
    /** The summary. */
    public static final String MARKDOWN = "pint-conformance.md";

    private static final class Run {
        final String workload;
        final String mode;
        final long seed;
        final List<FlowConformance> flows;
        final PintCounters counters;

        Run(String workload, String mode, long seed, List<FlowConformance> flows, PintCounters counters) {
            this.workload = workload;
            this.mode = mode;
            this.seed = seed;
            this.flows = flows;
            this.counters = counters;
        }
    }

    private final List<Run> runs = new ArrayList<>();

    /**
     * Records one run's view.
     *
     * @param workload workload label
     * @param mode     mode label
     * @param seed     workload seed
     * @param flows    the controller's verdicts at the end of the run
     * @param counters its PINT counters
     */
    public synchronized void add(String workload, String mode, long seed, List<FlowConformance> flows,
                                 PintCounters counters) {
        runs.add(new Run(workload, mode, seed, List.copyOf(flows), counters));
    }

    /**
     * Per run: moved flows, by status, and confirmation delays.
     *
     * @return Markdown
     */
    public synchronized String summary() {
        StringBuilder sb = new StringBuilder();
        sb.append("# PINT path conformance (controller view at the end of each PlanckTE run)\n\n")
                .append("Moved flows: flows TE moved at least once; confirmed: traced on their new path by a trace")
                .append(" received after the move. Delay: move decision -> the controller received the")
                .append(" confirming PINT_PATH (ms); packets: sink packets the collector's trace took.\n\n")
                .append("| workload | mode | seed | traced flows | moved | confirmed | pending | non-conforming")
                .append(" | untraced | delay p50 / p90 / max (ms) | packets p50 / p90 / max | other flows")
                .append(" non-conforming |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|\n");
        for (Run r : runs) {
            Map<ConformanceStatus, Integer> moved = new EnumMap<>(ConformanceStatus.class);
            List<Long> delays = new ArrayList<>();
            List<Long> packets = new ArrayList<>();
            int traced = 0;
            int movedCount = 0;
            int otherBad = 0;
            for (FlowConformance c : r.flows) {
                if (c.traces() > 0) {
                    traced++;
                }
                if (c.moves() == 0) {
                    if (c.status() == ConformanceStatus.NON_CONFORMING) {
                        otherBad++;
                    }
                    continue;
                }
                movedCount++;
                moved.merge(c.status(), 1, Integer::sum);
                if (c.status() == ConformanceStatus.MOVED_CONFIRMED) {
                    delays.add(c.confirmationMillis());
                    packets.add(c.tracePackets());
                }
            }
            sb.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %s | %s | %d |%n",
                    r.workload, r.mode, r.seed, traced, movedCount,
                    moved.getOrDefault(ConformanceStatus.MOVED_CONFIRMED, 0),
                    moved.getOrDefault(ConformanceStatus.MOVE_PENDING, 0),
                    moved.getOrDefault(ConformanceStatus.NON_CONFORMING, 0),
                    moved.getOrDefault(ConformanceStatus.UNTRACED, 0), quantiles(delays), quantiles(packets),
                    otherBad));
        }
        for (Run r : runs) {
            PintCounters k = r.counters;
            sb.append(String.format(Locale.ROOT, "%n%s / %s seed %d: %d PINT_PATH events, %d flows refused, %d"
                    + " confirmations, %d non-conforming transitions.", r.workload, r.mode, r.seed, k.paths(),
                    k.refused(), k.confirmed(), k.nonConforming()));
        }
        return sb.append('\n').toString();
    }

    /**
     * Writes the CSV and the summary.
     *
     * @param dir report directory
     * @throws IOException if a file cannot be written
     */
    public synchronized void write(Path dir) throws IOException {
        StringBuilder csv = new StringBuilder("workload,mode,seed,src,dst,proto,sport,dport,status,traces,"
                + "trace_packets,traced_ms,moves,moved_ms,moved_from,moved_to,confirmation_ms,traced_path,planned_path\n");
        for (Run r : runs) {
            for (FlowConformance c : r.flows) {
                csv.append(String.join(",", r.workload, r.mode, Long.toString(r.seed), c.flow().src().toString(),
                        c.flow().dst().toString(), Integer.toString(c.flow().proto()),
                        Integer.toString(c.flow().srcPort()), Integer.toString(c.flow().dstPort()),
                        c.status().name(), Long.toString(c.traces()), Long.toString(c.tracePackets()),
                        Long.toString(c.tracedMillis()), Long.toString(c.moves()), Long.toString(c.movedMillis()),
                        Integer.toString(c.movedFrom()), Integer.toString(c.movedTo()),
                        Long.toString(c.confirmationMillis()), path(c.tracedPath()), path(c.plannedPath())))
                        .append('\n');
            }
        }
        Files.writeString(dir.resolve(CSV), csv);
        Files.writeString(dir.resolve(MARKDOWN), summary());
    }

    private static String path(List<?> devices) {
        List<String> parts = new ArrayList<>();
        devices.forEach(d -> parts.add(d.toString()));
        return String.join(" ", parts);
    }

    private static String quantiles(List<Long> values) {
        if (values.isEmpty()) {
            return "-";
        }
        List<Long> v = new ArrayList<>(values);
        Collections.sort(v);
        return v.get(rank(v.size(), 0.5)) + " / " + v.get(rank(v.size(), 0.9)) + " / " + v.get(v.size() - 1);
    }

    private static int rank(int n, double q) {
        return Math.min(n - 1, (int) Math.ceil(q * n) - 1);
    }
}
