package org.planck.lab.experiment;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.planck.api.te.Reroute;
import org.planck.lab.control.LoopLatencyLog;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Writes an experiment's results: a markdown report, CSV tables (throughput summary, every
 * flow, every TE decision), a CDF of flow throughput per workload and a CDF of the control-loop
 * latency, as PNGs.
 */
public final class Report {
    /** File names inside the report directory. */
    public static final String MARKDOWN = "report.md";
    public static final String SUMMARY_CSV = "throughput.csv";
    public static final String FLOWS_CSV = "flows.csv";
    public static final String MOVES_CSV = "moves.csv";
    public static final String LOOP_CSV = "loop-latency.csv";
    public static final String LOOP_PNG = "loop-latency-cdf.png";

    private final List<RunResult> results;
    private final LinkRateDecision rate;
    private final String settings;
    private final long pollIntervalMs;

    /**
     * A report.
     *
     * @param results        runs
     * @param rate           link rate used and why
     * @param settings       one line describing flow size, seed, thresholds
     * @param pollIntervalMs Poll mode's interval, which names the mode ("Poll-100ms")
     */
    public Report(List<RunResult> results, LinkRateDecision rate, String settings, long pollIntervalMs) {
        this.results = List.copyOf(results);
        this.rate = rate;
        this.settings = settings;
        this.pollIntervalMs = pollIntervalMs;
    }

    /** A mode's name in the report: Poll's carries the interval it actually used. */
    private String label(RoutingMode m) {
        return m == RoutingMode.POLL ? "Poll-" + pollIntervalMs + "ms" : m.label();
    }

    /** A polling mode's period in µs, 0 for the others. */
    private long pollWindowUs(RoutingMode m) {
        return m == RoutingMode.POLL ? pollIntervalMs * 1000 : m == RoutingMode.POLL_1S ? ExperimentRunner.POLL_1S_MS * 1000 : 0;
    }

    /**
     * The throughput CDF file of a workload.
     *
     * @param w workload
     * @return file name
     */
    public static String cdfFile(Workload w) {
        return "throughput-cdf-" + w.id() + ".png";
    }

    /**
     * Writes everything into a directory.
     *
     * @param dir directory (created)
     * @throws IOException on write failure
     */
    public void write(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(SUMMARY_CSV), summaryCsv(), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(FLOWS_CSV), flowsCsv(), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(MOVES_CSV), movesCsv(), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(LOOP_CSV), loopCsv(), StandardCharsets.UTF_8);
        for (Workload w : workloads()) {
            BitmapEncoder.saveBitmap(throughputCdf(w), dir.resolve(cdfFile(w)).toString(),
                                     BitmapEncoder.BitmapFormat.PNG);
        }
        BitmapEncoder.saveBitmap(loopCdf(), dir.resolve(LOOP_PNG).toString(), BitmapEncoder.BitmapFormat.PNG);
        Files.writeString(dir.resolve(MARKDOWN), markdown(), StandardCharsets.UTF_8);
    }

    private List<Workload> workloads() {
        List<Workload> ws = new ArrayList<>();
        for (RunResult r : results) {
            if (!ws.contains(r.workload())) {
                ws.add(r.workload());
            }
        }
        return ws;
    }

    private List<RoutingMode> modes() {
        List<RoutingMode> ms = new ArrayList<>();
        for (RunResult r : results) {
            if (!ms.contains(r.mode())) {
                ms.add(r.mode());
            }
        }
        ms.sort(null);
        return ms;
    }

    private RunResult find(Workload w, RoutingMode m) {
        for (RunResult r : results) {
            if (r.workload() == w && r.mode() == m) {
                return r;
            }
        }
        return null;
    }

    /**
     * The summary table as CSV.
     *
     * @return CSV text
     */
    public String summaryCsv() {
        StringBuilder sb = new StringBuilder(
                "workload,mode,link_bps,flows,mean_mbps,median_mbps,mean_pct_of_optimal,moves,max_lag_us,unmatched\n");
        for (RunResult r : results) {
            RunResult opt = find(r.workload(), RoutingMode.OPTIMAL);
            String pct = opt == null || opt.meanThroughputBps() == 0 ? ""
                    : fmt(100 * r.meanThroughputBps() / opt.meanThroughputBps());
            sb.append(r.workload().id()).append(',').append(label(r.mode())).append(',').append(r.linkBps())
                    .append(',').append(r.flows().size()).append(',').append(fmt(r.meanThroughputBps() / 1e6))
                    .append(',').append(fmt(r.medianThroughputBps() / 1e6)).append(',').append(pct)
                    .append(',').append(r.moves()).append(',').append(r.maxLagUs()).append(',')
                    .append(r.unmatched()).append('\n');
        }
        return sb.toString();
    }

    /** Every TE move: when (wall clock, ms), which flow, off which port, from and to which path. */
    private String movesCsv() {
        StringBuilder sb = new StringBuilder(
                "workload,mode,time_ms,src,dst,proto,sport,dport,congested_port,from_path,to_path,decision_latency_us\n");
        for (RunResult r : results) {
            for (Reroute m : r.moveLog()) {
                sb.append(r.workload().id()).append(',').append(label(r.mode())).append(',').append(m.timeMillis())
                        .append(',').append(m.flow().src()).append(',').append(m.flow().dst()).append(',')
                        .append(m.flow().proto()).append(',').append(m.flow().srcPort()).append(',')
                        .append(m.flow().dstPort()).append(',')
                        .append(m.congestedPort().map(Object::toString).orElse("")).append(',')
                        .append(m.fromPath()).append(',').append(m.toPath()).append(',')
                        .append(m.decisionLatencyMicros()).append('\n');
            }
        }
        return sb.toString();
    }

    private String flowsCsv() {
        StringBuilder sb = new StringBuilder(
                "workload,mode,seed,id,src,dst,bytes,start_us,finish_us,throughput_mbps,retransmits,timeouts\n");
        for (RunResult r : results) {
            for (FlowResult f : r.flows()) {
                sb.append(r.workload().id()).append(',').append(label(r.mode())).append(',').append(f.seed())
                        .append(',').append(f.id())
                        .append(',').append(f.src()).append(',').append(f.dst()).append(',').append(f.bytes())
                        .append(',').append(f.startUs()).append(',').append(f.finishUs()).append(',')
                        .append(fmt(f.throughputBps() / 1e6)).append(',').append(f.retransmits()).append(',')
                        .append(f.timeouts()).append('\n');
            }
        }
        return sb.toString();
    }

    private String loopCsv() {
        StringBuilder sb = new StringBuilder(
                "workload,mode,trigger,switch,port,sample_us,receipt_us,decision_us,fabric_applied_us,answered_us,moves,"
                + "detect_us,sent_us,submitted_us,window_us\n");
        for (RunResult r : results) {
            for (LoopLatencyLog.Entry e : r.decisions()) {
                sb.append(r.workload().id()).append(',').append(label(r.mode())).append(',').append(e.trigger())
                        .append(',').append(e.port().deviceId()).append(',').append(e.port().port().toLong())
                        .append(',').append(e.sampleUs()).append(',').append(e.receiptUs()).append(',')
                        .append(e.decisionUs()).append(',').append(e.appliedUs()).append(',')
                        .append(e.answeredUs()).append(',').append(e.moves()).append(',')
                        .append(e.stages().detectUs()).append(',').append(e.stages().sentUs()).append(',')
                        .append(e.stages().submittedUs()).append(',').append(e.stages().windowUs())
                        .append('\n');
            }
        }
        return sb.toString();
    }

    /** Loop intervals over every decision that moved flows, per TE mode. */
    private Map<RoutingMode, LoopLatencyLog> loopByMode() {
        Map<RoutingMode, LoopLatencyLog> m = new EnumMap<>(RoutingMode.class);
        for (RunResult r : results) {
            if (r.mode().te() == org.planck.api.te.TeMode.STATIC) {
                continue;
            }
            LoopLatencyLog l = m.computeIfAbsent(r.mode(), k -> new LoopLatencyLog(Integer.MAX_VALUE));
            r.decisions().forEach(l::record);
        }
        return m;
    }

    /**
     * How well the fabric kept real time over the runs: where it falls behind the wall clock,
     * emulated time runs slow while the controller, the collector and the poller work on the
     * wall clock, so every mode's figures carry the machine's delays.
     *
     * @param runs the runs
     * @return one line, or null without runs
     */
    static String realTimeLine(List<RunResult> runs) {
        if (runs.isEmpty()) {
            return null;
        }
        long[] lags = runs.stream().mapToLong(RunResult::maxLagUs).sorted().toArray();
        long within = java.util.Arrays.stream(lags).filter(l -> l <= ExperimentRunner.REALTIME_LAG_LIMIT_US).count();
        RunResult worst = runs.stream().max(java.util.Comparator.comparingLong(RunResult::maxLagUs)).get();
        String head = within == lags.length
                ? "Real time: **kept**: the fabric's largest lag behind the wall clock stayed within "
                        + ExperimentRunner.REALTIME_LAG_LIMIT_US / 1000 + " ms in every run"
                : String.format(java.util.Locale.ROOT, "Real time: **not kept in %d of %d runs**: the fabric fell "
                        + "behind the wall clock by up to %.1f ms (%s / %s; median over the runs of each run's "
                        + "largest lag %.1f ms); while it is behind, emulated time runs slow and every mode's "
                        + "figures carry this machine's delays (lag per run in the table below)",
                        lags.length - within, lags.length, worst.maxLagUs() / 1000.0, worst.workload().label(),
                        worst.mode().label(), lags[lags.length / 2] / 1000.0);
        return head;
    }

    /**
     * The markdown report.
     *
     * @return text
     */
    public String markdown() {
        StringBuilder sb = new StringBuilder("# Planck lab: traffic engineering on the emulated fabric\n\n");
        sb.append("- Fabric: k=4 fat tree, 16 hosts (Optimal: one non-blocking 16-port switch)\n");
        sb.append("- Link rate: **").append(rate.label()).append("** (").append(rate.reason()).append(")\n");
        sb.append("- ").append(settings).append("\n");
        String rt = realTimeLine(results);
        if (rt != null) {
            sb.append("- ").append(rt).append('\n');
        }
        sb.append('\n');
        sb.append("## Flow throughput (Mb/s)\n\n");
        List<RoutingMode> modes = modes();
        sb.append("| workload |");
        for (RoutingMode m : modes) {
            sb.append(' ').append(label(m)).append(" mean | ").append(label(m)).append(" median |");
        }
        sb.append("\n|---|");
        for (int i = 0; i < modes.size(); i++) {
            sb.append("---:|---:|");
        }
        sb.append('\n');
        for (Workload w : workloads()) {
            sb.append("| ").append(w.label()).append(" |");
            for (RoutingMode m : modes) {
                RunResult r = find(w, m);
                sb.append(' ').append(r == null ? "-" : fmt(r.meanThroughputBps() / 1e6)).append(" | ")
                        .append(r == null ? "-" : fmt(r.medianThroughputBps() / 1e6)).append(" |");
            }
            sb.append('\n');
        }
        if (modes.contains(RoutingMode.OPTIMAL)) {
            sb.append("\nMean throughput as % of Optimal:\n\n| workload |");
            for (RoutingMode m : modes) {
                sb.append(' ').append(label(m)).append(" |");
            }
            sb.append("\n|---|");
            modes.forEach(m -> sb.append("---:|"));
            sb.append('\n');
            for (Workload w : workloads()) {
                RunResult opt = find(w, RoutingMode.OPTIMAL);
                sb.append("| ").append(w.label()).append(" |");
                for (RoutingMode m : modes) {
                    RunResult r = find(w, m);
                    sb.append(' ').append(r == null || opt == null || opt.meanThroughputBps() == 0 ? "-"
                            : fmt(100 * r.meanThroughputBps() / opt.meanThroughputBps())).append(" |");
                }
                sb.append('\n');
            }
        }
        if (modes.contains(RoutingMode.PLANCK)) {
            sb.append("\nPlanckTE against the baselines (mean flow throughput; Planck's result: within a few % of "
                      + "Optimal, ahead of polling and static hashing):\n\n"
                      + "| workload | PlanckTE % of Optimal | ahead of " + label(RoutingMode.POLL)
                      + " | ahead of " + label(RoutingMode.POLL_1S) + " | ahead of Static |\n"
                      + "|---|---:|---|---|---|\n");
            for (Workload w : workloads()) {
                RunResult te = find(w, RoutingMode.PLANCK);
                if (te == null) {
                    continue;
                }
                RunResult opt = find(w, RoutingMode.OPTIMAL);
                sb.append("| ").append(w.label()).append(" | ")
                        .append(opt == null || opt.meanThroughputBps() == 0 ? "-"
                                : fmt(100 * te.meanThroughputBps() / opt.meanThroughputBps()))
                        .append(" | ").append(ahead(te, find(w, RoutingMode.POLL))).append(" | ")
                        .append(ahead(te, find(w, RoutingMode.POLL_1S))).append(" | ")
                        .append(ahead(te, find(w, RoutingMode.STATIC))).append(" |\n");
            }
        }
        if (modes.contains(RoutingMode.PLANCK)) {
            for (RoutingMode poll : List.of(RoutingMode.POLL, RoutingMode.POLL_1S)) {
                if (modes.contains(poll)) {
                    pairedSection(sb, poll);
                }
            }
        }
        sb.append("\nRuns: flows moved by TE, emulator lag and loss\n\n")
                .append("| workload | mode | flows | moves | notices | max lag (us) | unmatched | mirror frames | mirror drops |\n")
                .append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RunResult r : results) {
            sb.append("| ").append(r.workload().label()).append(" | ").append(label(r.mode())).append(" | ")
                    .append(r.flows().size()).append(" | ").append(r.moves()).append(" | ").append(r.notices())
                    .append(" | ").append(r.maxLagUs()).append(" | ").append(r.unmatched()).append(" | ")
                    .append(r.mirrorFrames()).append(" | ").append(r.mirrorDrops()).append(" |\n");
        }
        sb.append("\n## Throughput CDFs\n\n");
        for (Workload w : workloads()) {
            sb.append("![").append(w.label()).append("](").append(cdfFile(w)).append(")\n");
        }
        sb.append("\n## Control-loop latency (decisions that moved flows, µs)\n\n")
                .append("Every stage on the wall clock of this machine: the collector's capture stamp of the sample ")
                .append("(`sampleUs`), its detection (`timeUs` of the CONGESTED notice), its export (`sentUs` of the ")
                .append("batch), the controller's receipt, decision, hand-over of the rule batch to the fabric, and the ")
                .append("fabric's answer (sent once the rules are in force; its own `appliedUs` is in `loop-latency.csv` ")
                .append("and runs behind the wall clock by the fabric's lag). Detection and export are known for notice ")
                .append("decisions; load-view decisions (the flow rates of a batch) start at the newest sample of the ")
                .append("batch. For Poll, \"sample\" is the fabric time of the counter read; its counters are averages ")
                .append("over the whole poll interval, so a change at the start of the interval waits for the interval ")
                .append("too: the last row adds that window (0 for PlanckTE's samples).\n\n")
                .append("| mode | interval | n | p50 | p90 | p99 | max |\n|---|---|---:|---:|---:|---:|---:|\n");
        Map<String, ToLongFunction<LoopLatencyLog.Entry>> intervals = new LinkedHashMap<>();
        intervals.put("sample → collector detect", LoopLatencyLog.Entry::sampleToDetectUs);
        intervals.put("detect → export sent", LoopLatencyLog.Entry::detectToSentUs);
        intervals.put("export sent → controller", LoopLatencyLog.Entry::sentToReceiptUs);
        intervals.put("sample → controller", LoopLatencyLog.Entry::sampleToReceiptUs);
        intervals.put("controller → decision", LoopLatencyLog.Entry::receiptToDecisionUs);
        intervals.put("decision → rules submitted", LoopLatencyLog.Entry::decisionToSubmittedUs);
        intervals.put("submitted → fabric answer (applied)", LoopLatencyLog.Entry::submittedToAnsweredUs);
        intervals.put("**sample → applied (loop)**", LoopLatencyLog.Entry::sampleToAppliedUs);
        intervals.put("measurement window start → applied", LoopLatencyLog.Entry::windowStartToAppliedUs);
        for (Map.Entry<RoutingMode, LoopLatencyLog> e : loopByMode().entrySet()) {
            for (Map.Entry<String, ToLongFunction<LoopLatencyLog.Entry>> i : intervals.entrySet()) {
                LoopLatencyLog.Distribution d = e.getValue().appliedKnown(i.getValue());
                if (d.count() == 0) {
                    continue;
                }
                sb.append("| ").append(label(e.getKey())).append(" | ").append(i.getKey()).append(" | ")
                        .append(d.count()).append(" | ").append(d.quantile(0.5)).append(" | ")
                        .append(d.quantile(0.9)).append(" | ").append(d.quantile(0.99)).append(" | ")
                        .append(d.max()).append(" |\n");
            }
        }
        LoopLatencyLog planck = loopByMode().get(RoutingMode.PLANCK);
        if (planck != null) {
            sb.append("\nPlanckTE by trigger (sample → applied): ");
            for (LoopLatencyLog.Trigger t : LoopLatencyLog.Trigger.values()) {
                LoopLatencyLog.Distribution d = planck.appliedKnown(
                        x -> x.trigger() == t ? x.sampleToAppliedUs() : -1);
                if (d.count() > 0) {
                    sb.append(t).append(" n=").append(d.count()).append(" p50 ").append(d.quantile(0.5))
                            .append(" p99 ").append(d.quantile(0.99)).append("; ");
                }
            }
            sb.append('\n');
        }
        sb.append("\n![loop latency](").append(LOOP_PNG).append(")\n");
        sb.append("\nFiles: `").append(SUMMARY_CSV).append("` (this table), `").append(FLOWS_CSV)
                .append("` (every flow), `").append(LOOP_CSV).append("` (every TE decision), `").append(MOVES_CSV)
                .append("` (every flow TE moved).\n");
        return sb.toString();
    }

    /**
     * PlanckTE - a polling mode per workload, paired by seed: per-seed means, the mean difference
     * and its 95 % t interval.
     */
    private void pairedSection(StringBuilder sb, RoutingMode poll) {
        sb.append("\nPlanckTE − ").append(label(poll)).append(", paired by seed (mean flow throughput of each run, Mb/s; ")
                .append("95 % confidence interval of the mean difference, Student's t over the per-seed differences; ")
                .append("and the gain PlanckTE / ").append(label(poll)).append(" − 1 with the t interval of the mean ")
                .append("log ratio, since a workload's seeds differ in how much traffic can flow at all and the gain ")
                .append("grows with it):\n\n")
                .append("| workload | seeds | per seed: PlanckTE / ").append(label(poll))
                .append(" | mean difference | 95 % CI | CI above 0 | gain | 95 % CI of gain | gain CI above 0 |\n")
                .append("|---|---:|---|---:|---|---|---:|---|---|\n");
        for (Workload w : workloads()) {
            RunResult te = find(w, RoutingMode.PLANCK);
            RunResult p = find(w, poll);
            if (te == null || p == null) {
                continue;
            }
            Map<Long, Double> a = perSeedMeanMbps(te);
            Map<Long, Double> b = perSeedMeanMbps(p);
            List<Long> seeds = new ArrayList<>(a.keySet());
            seeds.retainAll(b.keySet());
            if (seeds.isEmpty()) {
                continue;
            }
            double[] x = new double[seeds.size()];
            double[] y = new double[seeds.size()];
            StringBuilder per = new StringBuilder();
            for (int i = 0; i < seeds.size(); i++) {
                x[i] = a.get(seeds.get(i));
                y[i] = b.get(seeds.get(i));
                per.append(i == 0 ? "" : ", ").append(seeds.get(i)).append(": ").append(fmt(x[i])).append('/')
                        .append(fmt(y[i]));
            }
            PairedDifference d = PairedDifference.of(x, y);
            sb.append("| ").append(w.label()).append(" | ").append(d.pairs()).append(" | ").append(per)
                    .append(" | ").append(fmt(d.mean())).append(" | ")
                    .append(d.pairs() < 2 ? "- (one seed)" : "[" + fmt(d.low()) + ", " + fmt(d.high()) + "]")
                    .append(" | ").append(d.aboveZero() ? "yes" : "no").append(" | ");
            if (Arrays.stream(x).allMatch(v -> v > 0) && Arrays.stream(y).allMatch(v -> v > 0)) {
                PairedDifference g = PairedDifference.ofRatio(x, y);
                sb.append(pct(g.mean())).append(" | ")
                        .append(g.pairs() < 2 ? "- (one seed)" : "[" + pct(g.low()) + ", " + pct(g.high()) + "]")
                        .append(" | ").append(g.aboveZero() ? "yes" : "no").append(" |\n");
            } else {
                sb.append("- | - (a run carried nothing) | no |\n");
            }
        }
    }

    /** A fraction as a signed percentage, e.g. "+17.7 %". */
    private static String pct(double fraction) {
        return (fraction >= 0 ? "+" : "") + fmt(100 * fraction) + " %";
    }

    /** Mean flow throughput per seed, Mb/s, seeds ascending. */
    private static Map<Long, Double> perSeedMeanMbps(RunResult r) {
        Map<Long, double[]> acc = new java.util.TreeMap<>();
        for (FlowResult f : r.flows()) {
            double[] s = acc.computeIfAbsent(f.seed(), k -> new double[2]);
            s[0] += f.throughputBps() / 1e6;
            s[1]++;
        }
        Map<Long, Double> out = new LinkedHashMap<>();
        acc.forEach((seed, s) -> out.put(seed, s[0] / s[1]));
        return out;
    }

    /** "yes (+x %)" or "no (-x %)" of PlanckTE's mean against a baseline's; "-" without one. */
    private static String ahead(RunResult te, RunResult baseline) {
        if (baseline == null || baseline.meanThroughputBps() == 0) {
            return "-";
        }
        double pct = 100 * (te.meanThroughputBps() / baseline.meanThroughputBps() - 1);
        return (pct > 0 ? "yes (+" : "no (") + fmt(pct) + " %)";
    }

    private XYChart throughputCdf(Workload w) {
        XYChart chart = new XYChartBuilder().width(800).height(500)
                .title("Flow throughput CDF: " + w.label() + " (" + rate.label() + " links)")
                .xAxisTitle("flow throughput (Mb/s)").yAxisTitle("fraction of flows").build();
        chart.getStyler().setYAxisMin(0.0).setYAxisMax(1.0);
        for (RoutingMode m : modes()) {
            RunResult r = find(w, m);
            if (r == null || r.flows().isEmpty()) {
                continue;
            }
            double[] t = r.sortedThroughputs();
            double[][] xy = stepCdf(Arrays.stream(t).map(v -> v / 1e6).toArray());
            chart.addSeries(label(m), xy[0], xy[1]).setMarker(SeriesMarkers.NONE);
        }
        return chart;
    }

    private XYChart loopCdf() {
        XYChart chart = new XYChartBuilder().width(800).height(500)
                .title("Control loop: sample captured -> rule in force")
                .xAxisTitle("latency (ms)").yAxisTitle("fraction of decisions").build();
        chart.getStyler().setYAxisMin(0.0).setYAxisMax(1.0);
        boolean any = false;
        for (Map.Entry<RoutingMode, LoopLatencyLog> e : loopByMode().entrySet()) {
            long[] v = e.getValue().applied(LoopLatencyLog.Entry::sampleToAppliedUs).values();
            if (v.length == 0) {
                continue;
            }
            double[][] xy = stepCdf(Arrays.stream(v).mapToDouble(x -> x / 1000.0).toArray());
            chart.addSeries(label(e.getKey()), xy[0], xy[1]).setMarker(SeriesMarkers.NONE);
            any = true;
        }
        if (!any) {
            chart.addSeries("no decisions moved flows", new double[]{0}, new double[]{0});
        }
        return chart;
    }

    /** Points of an empirical CDF drawn as steps: (x_i, (i)/n) then (x_i, (i+1)/n). */
    static double[][] stepCdf(double[] sorted) {
        int n = sorted.length;
        double[] x = new double[2 * n];
        double[] y = new double[2 * n];
        for (int i = 0; i < n; i++) {
            x[2 * i] = sorted[i];
            y[2 * i] = (double) i / n;
            x[2 * i + 1] = sorted[i];
            y[2 * i + 1] = (double) (i + 1) / n;
        }
        return new double[][]{x, y};
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
