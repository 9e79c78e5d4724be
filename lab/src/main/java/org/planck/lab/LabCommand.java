package org.planck.lab;

import org.planck.api.config.PlanckSettings;
import org.planck.lab.control.CollectorClient;
import org.planck.lab.control.TeSettings;
import org.planck.lab.control.TelemetryEndpoint;
import org.planck.lab.experiment.ExperimentRunner;
import org.planck.lab.experiment.FabricSpec;
import org.planck.lab.experiment.LinkRateDecision;
import org.planck.lab.experiment.ProcessFabricLauncher;
import org.planck.lab.experiment.Report;
import org.planck.lab.experiment.RoutingMode;
import org.planck.lab.experiment.RunProgress;
import org.planck.lab.experiment.RunResult;
import org.planck.lab.experiment.Workload;
import org.planck.lab.view.FabricViewServer;
import org.planck.lab.http.NoDelayHttpServer;
import org.planck.lab.sched.LoopThreads;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code java -jar planck-lab.jar experiment ...}: the lab's command line.
 */
@Command(name = "planck-lab", mixinStandardHelpOptions = true, version = "planck-lab 1.0.0",
        description = "Planck's closed loop on the planck-emu fabric, with the ONOS app's own routing and TE classes.",
        subcommands = {LabCommand.Experiment.class})
public final class LabCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        CommandLine.usage(this, System.out);
        return 2;
    }

    /**
     * Entry point.
     *
     * @param args arguments
     */
    public static void main(String[] args) {
        NoDelayHttpServer.init();
        System.setProperty("java.awt.headless", "true");
        // The progress bar owns the terminal; per-run details go to the report.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        CommandLine cli = new CommandLine(new LabCommand()).setCaseInsensitiveEnumValuesAllowed(true);
        // A failed run ends with one line saying why; the logs named in it hold the rest.
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("planck-lab: " + e.getMessage());
            return 1;
        });
        System.exit(cli.execute(args));
    }

    /** The traffic-engineering experiment. */
    @Command(name = "experiment", mixinStandardHelpOptions = true,
            description = "Run workloads x routing modes on a k=4 fat tree and write the report.")
    static final class Experiment implements Callable<Integer> {
        @Option(names = "--emu-bin", description = "planck-emu executable (default: ${DEFAULT-VALUE})",
                defaultValue = "target/release/planck-emu")
        Path emuBin;

        @Option(names = "--out", description = "report directory (default: results/lab-<time>)")
        Path out;

        @Option(names = "--quick", description = "CI variant: stride(8) and random bijection only, without Poll-1s")
        boolean quick;

        @Option(names = "--workloads", split = ",",
                description = "stride8, shuffle, random, bijection (default: all four; --quick: stride8,bijection)")
        List<String> workloads;

        @Option(names = "--modes", split = ",",
                description = "static, poll, poll_1s, planck, optimal (default: all five, --quick: all but poll_1s; "
                        + "poll_1s polls every second, the paper's slower baseline)")
        List<RoutingMode> modes;

        @Option(names = "--flow-mib", description = "flow size in MiB (default: 10: at 1 Gb/s a flow lives about "
                + "84 ms, less than Poll-100ms's period, as Planck's 100 MiB flows at 10 Gb/s did)")
        Long flowMib;

        @Option(names = "--link-gbps", defaultValue = "auto",
                description = "link rate: auto (10 if the emulator keeps real time at 10 Gb/s, else 1), 1 or 10")
        String linkGbps;

        @Option(names = "--seed", defaultValue = "1", description = "workload seed (default: ${DEFAULT-VALUE})")
        long seed;

        @Option(names = "--repeats", defaultValue = "1",
                description = "runs per workload and mode, with seeds seed, seed+1, ...; their flows are pooled "
                        + "(1-10, default: ${DEFAULT-VALUE})")
        int repeats;

        @Option(names = "--rounds", defaultValue = "10",
                description = "rounds per run: stride(8), random and random bijection give every host one flow "
                        + "per round, each round a fresh draw of the pattern, one after another (shuffle is "
                        + "one round of n-1 flows per host) (1-15, default: ${DEFAULT-VALUE})")
        int rounds;

        @Option(names = "--listen", defaultValue = "127.0.0.1:8181",
                description = "telemetry endpoint address (default: ${DEFAULT-VALUE})")
        String listen;

        @Option(names = "--view", defaultValue = "127.0.0.1:8182",
                description = "live fabric view address, or off (default: ${DEFAULT-VALUE})")
        String view;

        @Option(names = "--user", defaultValue = "planck", description = "telemetry endpoint user")
        String user;

        @Option(names = "--password", defaultValue = "planck-lab", description = "telemetry endpoint password")
        String password;

        @Option(names = "--collector-control", defaultValue = "http://127.0.0.1:7070",
                description = "collector control endpoint (default: ${DEFAULT-VALUE})")
        URI collectorControl;

        @Option(names = "--collector-user",
                description = "collector control endpoint user ([control] username; with --collector-password)")
        String collectorUser;

        @Option(names = "--collector-password",
                description = "collector control endpoint password ([control] password)")
        String collectorPassword;

        @Option(names = "--collector-id", defaultValue = "c1", description = "collector id")
        String collectorId;

        @Option(names = "--mirror-interface", defaultValue = "plk-mir0",
                description = "interface the fabric writes mirror frames to (default: ${DEFAULT-VALUE})")
        String mirrorInterface;

        @Option(names = "--mirror-rate-fraction", defaultValue = "0.1",
                description = "mirror port rate as a fraction of the link rate (default: ${DEFAULT-VALUE})")
        double mirrorRateFraction;

        @Option(names = "--emu-control", defaultValue = "127.0.0.1:9870",
                description = "fabric control API address (default: ${DEFAULT-VALUE})")
        String emuControl;

        @Option(names = "--fabric-spin",
                description = "fabric busy-waits for each timeslot (exact pacing, one core busy); default: sleeps, "
                        + "leaving the core to the collector and controller")
        boolean fabricSpin;

        @Option(names = "--threshold-pct", defaultValue = "80", description = "congestion threshold, %% of capacity (default: ${DEFAULT-VALUE})")
        double thresholdPct;

        @Option(names = "--hysteresis-pct", defaultValue = "5", description = "congestion hysteresis, %% (default: ${DEFAULT-VALUE})")
        double hysteresisPct;

        @Option(names = "--damping-ms", defaultValue = "100", description = "a moved flow stays put this long")
        long dampingMs;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--poll-ms", defaultValue = "100", description = "Poll mode's interval")
        long pollMs;

        @Option(names = "--flow-report-ms", defaultValue = "1",
                description = "the collector's flow-rate batch period, 1-1000 ms: how often PlanckTE's load view "
                        + "is refreshed (congestion notices go at once) (default: ${DEFAULT-VALUE})")
        double flowReportMs;

        @Option(names = "--fabric-nice", defaultValue = "0",
                description = "nice value of the emulated fabric, 0-19; its lag is reported (default: ${DEFAULT-VALUE})")
        int fabricNice;

        @Option(names = "--fabric-cpus",
                description = "CPUs the emulated fabric runs on (taskset -c list, e.g. 1), so the loop's "
                        + "real-time threads never preempt it; default: wherever the scheduler puts it")
        String fabricCpus;

        @Option(names = "--loop-rt-priority", defaultValue = "10",
                description = "SCHED_FIFO priority of the control loop's threads (telemetry intake, rule installer, "
                        + "poller), 1-99, or 0 for normal priority; the rest of the controller stays at normal "
                        + "priority (default: ${DEFAULT-VALUE})")
        int loopRtPriority;

        @Option(names = "--pint-bits", defaultValue = "0",
                description = "PINT path tracing on the fabric's switches with this many bits of the IPv4 ID (0: off); "
                        + "PlanckTE runs then record the controller's path-conformance view in pint-conformance.csv/.md "
                        + "(the PINT sink is planck-collector pint-live, started by scripts/lab.sh --pint)")
        int pintBits;

        @Option(names = "--telemetry", defaultValue = "mirror",
                description = "what PlanckTE decides congestion on: mirror (collector notices and the load view from "
                        + "mirrored samples), int (INT queue occupancy reported by the fabric's INT sinks), or both "
                        + "(default: ${DEFAULT-VALUE}); int and both turn INT on in the fabric (scripts/lab.sh --telemetry)")
        String telemetry;

        @Option(names = "--int-interface", defaultValue = "plk-int0",
                description = "interface the fabric's INT sinks send telemetry reports on (default: ${DEFAULT-VALUE})")
        String intInterface;

        @Option(names = "--int-version", defaultValue = "2",
                description = "telemetry report version of the INT sinks, 1.0 or 2 (default: ${DEFAULT-VALUE})")
        String intVersion;

        @Option(names = "--int-sample", defaultValue = "64",
                description = "INT sources sample 1 in this many packets from hosts (default: ${DEFAULT-VALUE})")
        int intSample;

        @Option(names = "--int-max-reports-per-ms", defaultValue = "50",
                description = "INT reports the fabric sends per ms at most; more are dropped and counted (default: ${DEFAULT-VALUE})")
        int intMaxReportsPerMs;

        @Option(names = "--int-queue-threshold", defaultValue = "24",
                description = "INT queue occupancy (packets) at or above which a port is congested (default: ${DEFAULT-VALUE})")
        long intQueueThreshold;

        @Option(names = "--int-queue-hysteresis", defaultValue = "16",
                description = "a port INT marked congested clears below threshold minus this (default: ${DEFAULT-VALUE})")
        long intQueueHysteresis;

        @Option(names = "--elephant-pct", defaultValue = "" + PlanckSettings.DEFAULT_ELEPHANT_THRESHOLD_PCT,
                description = "TE plans a flow at or above this %% of its host link with its demand (its hosts' fair share); 0: measured rates only (default: ${DEFAULT-VALUE})")
        double elephantPct;

        /** --telemetry's value as the network config's congestion signal, or null. */
        static org.planck.api.config.CongestionSignal telemetrySignal(String v) {
            if ("mirror".equals(v)) {
                return org.planck.api.config.CongestionSignal.MIRRORS;
            }
            return "int".equals(v) || "both".equals(v)
                    ? org.planck.api.config.CongestionSignal.fromConfig(v).orElse(null) : null;
        }

        static String telemetryLabel(org.planck.api.config.CongestionSignal s, long threshold, long hysteresis) {
            String intPart = String.format("INT queue occupancy >= %d packets (cleared below %d)", threshold,
                                           threshold - hysteresis);
            switch (s) {
                case INT:
                    return intPart + " (mirrors still give the flows' rates)";
                case BOTH:
                    return "mirror samples (collector notices, load view) or " + intPart;
                default:
                    return "mirror samples (collector notices, load view)";
            }
        }

        @Option(names = "--linux-hosts",
                description = "TOML file with a [linux_hosts] section: real Linux hosts in network namespaces "
                        + "(emulator/realhosts/lab-hosts.sh) are the fabric's endpoints and their TCP flows the "
                        + "workload (scripts/lab.sh --endpoints linux)")
        Path linuxHosts;

        @Option(names = "--link-mbps",
                description = "link rate in Mb/s, fixed (overrides --link-gbps): a rate the machine carries in real "
                        + "time with real hosts")
        Long linkMbps;

        @Option(names = "--flow-bytes", description = "flow size in bytes (overrides --flow-mib)")
        Long flowBytesOption;

        private CollectorClient collectorClient() {
            return collectorUser == null ? new CollectorClient(collectorControl)
                    : new CollectorClient(collectorControl, collectorUser, collectorPassword);
        }

        @Override
        public Integer call() throws Exception {
            List<Workload> ws = new ArrayList<>();
            List<String> names = workloads != null ? workloads
                    : quick ? List.of("stride8", "bijection") : List.of("stride8", "shuffle", "random", "bijection");
            for (String n : names) {
                ws.add(Workload.byId(n.trim()));
            }
            List<RoutingMode> ms = modes != null ? modes
                    : quick ? List.of(RoutingMode.STATIC, RoutingMode.POLL, RoutingMode.PLANCK, RoutingMode.OPTIMAL)
                    : List.of(RoutingMode.STATIC, RoutingMode.POLL_1S, RoutingMode.POLL, RoutingMode.PLANCK,
                              RoutingMode.OPTIMAL);
            long mib = flowMib != null ? flowMib : 10;
            if (mib <= 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--flow-mib must be positive");
            }
            if (repeats < 1 || repeats > ExperimentRunner.Options.MAX_REPEATS) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--repeats must be in 1.."
                        + ExperimentRunner.Options.MAX_REPEATS);
            }
            if (rounds < 1 || rounds > ExperimentRunner.Options.MAX_ROUNDS) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--rounds must be in 1.."
                        + ExperimentRunner.Options.MAX_ROUNDS);
            }
            if (!(flowReportMs >= 1 && flowReportMs <= 1000)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--flow-report-ms must be in 1..1000");
            }
            if (pintBits < 0 || pintBits > 16) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--pint-bits must be 0 (off) to 16");
            }
            org.planck.api.config.CongestionSignal signal = telemetrySignal(telemetry);
            if (signal == null) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--telemetry must be mirror, int or both, got " + telemetry);
            }
            org.planck.lab.experiment.IntSourceSpec intSource = null;
            org.planck.lab.control.IntQueueCongestion.Settings congestion;
            try {
                congestion = new org.planck.lab.control.IntQueueCongestion.Settings(signal, intQueueThreshold,
                                                                                    intQueueHysteresis);
                if (signal.usesInt()) {
                    intSource = new org.planck.lab.experiment.IntSourceSpec(intInterface, intVersion, intSample,
                                                                           intMaxReportsPerMs);
                }
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "INT settings: " + e.getMessage());
            }
            if ((collectorUser == null) != (collectorPassword == null)) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--collector-user and --collector-password go together");
            }
            if (linkMbps != null && (linkMbps < 1 || linkMbps > 100_000)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--link-mbps must be in 1..100000");
            }
            if (flowBytesOption != null && flowBytesOption <= 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--flow-bytes must be positive");
            }
            String hostsToml = null;
            if (linuxHosts != null) {
                if (!Files.isReadable(linuxHosts)) {
                    throw new CommandLine.ParameterException(spec.commandLine(),
                            "--linux-hosts " + linuxHosts + " is not readable");
                }
                hostsToml = Files.readString(linuxHosts);
                if (!hostsToml.contains("[linux_hosts]")) {
                    throw new CommandLine.ParameterException(spec.commandLine(),
                            "--linux-hosts " + linuxHosts + " has no [linux_hosts] section");
                }
            }
            long flowBytes = flowBytesOption != null ? flowBytesOption : mib << 20;
            String flowLabel = flowBytesOption != null ? flowBytes + " bytes" : mib + " MiB";
            if (!List.of("auto", "1", "10").contains(linkGbps)) {
                System.err.println("planck-lab: --link-gbps must be auto, 1 or 10");
                return 2;
            }
            if (!Files.isExecutable(emuBin)) {
                System.err.println("planck-lab: " + emuBin + " is not an executable planck-emu (build it: cargo build --release)");
                return 1;
            }
            Path dir = out != null ? out : Paths.get("results", "lab-"
                    + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            TeSettings te = new TeSettings(thresholdPct, hysteresisPct, dampingMs, pollMs, flowReportMs, elephantPct);
            ExperimentRunner.Options options = new ExperimentRunner.Options().flowBytes(flowBytes).seed(seed).repeats(repeats).rounds(rounds).te(te)
                    .controlListen(emuControl).mirrorInterface(mirrorInterface)
                    .mirrorRateFraction(mirrorRateFraction).collectorId(collectorId).fabricSpin(fabricSpin);
            org.planck.lab.experiment.PintConformanceLog pintLog = pintBits > 0
                    ? new org.planck.lab.experiment.PintConformanceLog() : null;
            options.pint(pintBits, pintLog);
            options.telemetry(intSource, congestion);
            int total = 0;
            for (Workload w : ws) {
                total += ExperimentRunner.flowCount(w, rounds) * ms.size() * repeats;
            }
            String[] hp = listen.split(":");
            String[] vp = view.split(":");
            LoopThreads.usePriority(loopRtPriority);
            try (FabricViewServer liveView = "off".equals(view) ? null
                        : FabricViewServer.start(new InetSocketAddress(vp[0], Integer.parseInt(vp[1])));
                 TelemetryEndpoint endpoint = TelemetryEndpoint.start(
                    new InetSocketAddress(hp[0], Integer.parseInt(hp[1])), user, password);
                 LabProgress bar = LabProgress.forStdout(total)) {
                RunProgress progress = new RunProgress() {
                    @Override
                    public void runStarted(String name, int flows) {
                        bar.stage(name);
                    }

                    @Override
                    public void flowFinished() {
                        bar.step();
                    }
                };
                if (liveView != null) {
                    System.out.println("planck-lab: live fabric view at " + liveView.url());
                    options.liveView(liveView);
                }
                ProcessFabricLauncher launcher =
                        new ProcessFabricLauncher(emuBin, dir.resolve("fabric"), fabricNice, fabricCpus);
                if (hostsToml != null) {
                    launcher.appendToConfig(hostsToml);
                }
                ExperimentRunner runner = new ExperimentRunner(launcher, endpoint, collectorClient(), options, progress);
                bar.stage("warming up the controller");
                org.planck.lab.control.JitWarmUp.run(2000);
                LinkRateDecision rate;
                if (linkMbps != null) {
                    rate = LinkRateDecision.fixed(linkMbps * 1_000_000L);
                } else if ("auto".equals(linkGbps)) {
                    bar.maxHint(total + ExperimentRunner.flowCount(Workload.STRIDE8, 1));
                    rate = runner.decideLinkRate(16L << 20);
                } else {
                    rate = LinkRateDecision.fixed(Long.parseLong(linkGbps) * LinkRateDecision.ONE_GBPS);
                }
                List<RunResult> results = runner.runAll(ws, ms, rate.linkBps());
                String seeds = (repeats == 1 ? "seed " + seed
                        : String.format("seeds %d-%d (%d runs of each workload and mode, flows pooled)", seed,
                                        seed + repeats - 1, repeats))
                        + (rounds == 1 ? "" : String.format("; %d rounds per run (one flow per host per round; "
                                + "shuffle one round of %d flows per host)", rounds, FabricSpec.HOSTS - 1));
                String settings = (hostsToml != null ? "Endpoints: **real Linux hosts** (network namespaces on veths, Linux TCP cubic, one connection per flow; times from the hosts' agents); " : "")
                        + String.format("Flows: %s; %s; threshold %.0f%%, hysteresis %.0f%%, "
                        + "damping %d ms, poll %d ms, flow reports every %s ms, elephants from %.0f%% of the host link; mirror ports at %.0f%% of link rate in every mode (same fabric and collector load; only PlanckTE acts on the samples); fabric %s",
                        flowLabel, seeds, thresholdPct, hysteresisPct, dampingMs, pollMs,
                        new java.text.DecimalFormat("0.##").format(flowReportMs), elephantPct, mirrorRateFraction * 100,
                        (fabricSpin ? "busy-waits per timeslot"
                                : hostsToml != null ? "waits for each timeslot (real hosts)"
                                : "sleeps between batches of " + FabricSpec.BATCH_US + " us of timeslots")
                                + (fabricNice > 0 ? ", at nice " + fabricNice : "")
                                + (fabricCpus != null ? ", on CPU " + fabricCpus + " (the collector and controller on the others)" : ""))
                        + (loopRtPriority > 0 ? "; the controller's loop threads (telemetry intake, rule installer, "
                                + "poller) at SCHED_FIFO " + loopRtPriority + ", the rest of it at normal priority" : "")
                        + (liveView != null ? "; live fabric view of each run served at " + liveView.url() : "")
                        + "; PlanckTE's congestion signal: " + telemetryLabel(signal, intQueueThreshold, intQueueHysteresis)
                        + (intSource != null ? "; " + intSource.describe() + " in every mode" : "");
                new Report(results, rate, settings, pollMs).write(dir);
                if (options.intLog() != null) {
                    options.intLog().write(dir);
                    System.out.print(options.intLog().summary());
                }
                if (pintLog != null) {
                    pintLog.write(dir);
                    System.out.print(pintLog.summary());
                }
            }
            System.out.println("planck-lab: report in " + dir.resolve(Report.MARKDOWN));
            System.out.print(Files.readString(dir.resolve(Report.SUMMARY_CSV)));
            return 0;
        }
    }
}
