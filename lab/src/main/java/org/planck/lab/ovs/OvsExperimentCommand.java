package org.planck.lab.ovs;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.planck.lab.control.CollectorClient;
import org.planck.lab.control.JitWarmUp;
import org.planck.lab.control.TeSettings;
import org.planck.lab.control.TelemetryEndpoint;
import org.planck.lab.experiment.ExperimentRunner;
import org.planck.lab.experiment.LinkRateDecision;
import org.planck.lab.experiment.Report;
import org.planck.lab.experiment.RoutingMode;
import org.planck.lab.experiment.RunProgress;
import org.planck.lab.experiment.RunResult;
import org.planck.lab.experiment.Workload;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Planck's experiment on the OVS lab fabric ({@code scripts/lab.sh --fabric ovs}, which builds the
 * bridges, hosts, mirrors and collector first): the emulated lab's {@link ExperimentRunner}, lab
 * controller and {@link Report}, unchanged, driving real switches through {@link OvsFabricLauncher}.
 */
@Command(name = "planck-lab-ovs", mixinStandardHelpOptions = true,
        description = "Planck's experiment on the OVS fat tree (run by scripts/lab.sh --fabric ovs)")
public final class OvsExperimentCommand implements Callable<Integer> {
    @Option(names = "--prefix", required = true, description = "name prefix of the fabric's bridges and namespaces")
    String prefix;

    @Option(names = "--db", required = true, description = "ovsdb-server socket, unix:PATH")
    String db;

    @Option(names = "--agent", required = true, description = "tcp-agent.py")
    Path agent;

    @Option(names = "--openflow", defaultValue = "127.0.0.1:16653", description = "OpenFlow listen address")
    String openflow;

    @Option(names = "--control", defaultValue = "127.0.0.1:19871", description = "fabric control API address")
    String control;

    @Option(names = "--link-bps", required = true, description = "rate the links are shaped to")
    long linkBps;

    @Option(names = "--link-reason", defaultValue = "shaped by tc tbf on every fabric veth",
            description = "why this rate, for the report")
    String linkReason;

    @Option(names = "--flow-bytes", required = true, description = "flow size in bytes")
    long flowBytes;

    @Option(names = "--workloads", split = ",", defaultValue = "stride8,shuffle,random,bijection")
    List<String> workloads;

    @Option(names = "--modes", split = ",", defaultValue = "static,poll,planck,optimal")
    List<RoutingMode> modes;

    @Option(names = "--seed", defaultValue = "1")
    long seed;

    @Option(names = "--repeats", defaultValue = "1")
    int repeats;

    @Option(names = "--out", required = true)
    Path out;

    @Option(names = "--listen", defaultValue = "127.0.0.1:18181", description = "telemetry endpoint")
    String listen;

    @Option(names = "--user", defaultValue = "planck")
    String user;

    @Option(names = "--password", defaultValue = "planck-lab")
    String password;

    @Option(names = "--collector-control", defaultValue = "http://127.0.0.1:17070")
    URI collectorControl;

    @Option(names = "--collector-link", required = true, description = "interface the collector captures")
    String collectorLink;

    @Option(names = "--mirror-rate-fraction", defaultValue = "0.1")
    double mirrorRateFraction;

    @Option(names = "--poll-ms", defaultValue = "100")
    long pollMs;

    @Option(names = "--damping-ms", defaultValue = "100")
    long dampingMs;

    @Option(names = "--mirror-every-run",
            description = "mirror the fat tree in Static and Poll runs too (the switches' mirroring cost in every mode)")
    boolean mirrorEveryRun;

    @Option(names = "--notes", description = "file whose text is appended to the report (the fabric's measurements)")
    Path notes;

    /**
     * Entry point.
     *
     * @param args arguments
     */
    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        CommandLine cli = new CommandLine(new OvsExperimentCommand()).setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExecutionExceptionHandler((e, c, p) -> {
            c.getErr().println("planck-lab-ovs: " + e.getMessage());
            return 1;
        });
        System.exit(cli.execute(args));
    }

    @Override
    public Integer call() throws Exception {
        List<Workload> ws = new ArrayList<>();
        for (String n : workloads) {
            ws.add(Workload.byId(n.trim()));
        }
        if (flowBytes <= 0 || linkBps <= 0) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--flow-bytes and --link-bps must be positive");
        }
        TeSettings te = new TeSettings(80, 5, dampingMs, pollMs, 5, 10);
        ExperimentRunner.Options options = new ExperimentRunner.Options().flowBytes(flowBytes).seed(seed)
                .repeats(repeats).te(te).controlListen(control).mirrorInterface(collectorLink)
                .mirrorRateFraction(mirrorRateFraction);
        int total = 0;
        for (Workload w : ws) {
            total += ExperimentRunner.flowCount(w, 1) * modes.size() * repeats;
        }
        String[] hp = listen.split(":");
        String[] op = openflow.split(":");
        boolean terminal = System.console() != null;
        PrintStream say = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Files.createDirectories(out);
        try (OvsFabricLauncher launcher = new OvsFabricLauncher(prefix, db, agent, linkBps,
                    new InetSocketAddress(op[0], Integer.parseInt(op[1])));
             TelemetryEndpoint endpoint = TelemetryEndpoint.start(
                     new InetSocketAddress(hp[0], Integer.parseInt(hp[1])), user, password);
             ProgressBar bar = terminal ? new ProgressBarBuilder().setTaskName("ovs lab").setInitialMax(total)
                     .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(500).build() : null) {
            if (mirrorEveryRun) {
                // As ExperimentRunner configures PlanckTE's mirrors: rate a fraction of the link, 30 kB, 128 B.
                launcher.mirrorEveryRun(Math.max(1, (long) (linkBps * mirrorRateFraction)), 30_000, 128);
            }
            AtomicInteger runs = new AtomicInteger();
            AtomicInteger flowsDone = new AtomicInteger();
            int totalRuns = ws.size() * modes.size() * repeats;
            int totalFlows = total;
            long t0 = System.nanoTime();
            RunProgress progress = new RunProgress() {
                @Override
                public void runStarted(String name, int flows) {
                    if (bar != null) {
                        bar.setExtraMessage(name);
                    } else {
                        // Not a terminal: one line per stage (a run), with what is done so far.
                        say.printf(Locale.ROOT, "ovs lab: run %d/%d %s (%d flows; %d/%d flows done, %.0f s)%n",
                                   runs.incrementAndGet(), totalRuns, name, flows, flowsDone.get(), totalFlows,
                                   (System.nanoTime() - t0) / 1e9);
                    }
                }

                @Override
                public void flowFinished() {
                    flowsDone.incrementAndGet();
                    if (bar != null) {
                        bar.step();
                    }
                }
            };
            ExperimentRunner runner = new ExperimentRunner(launcher, endpoint, new CollectorClient(collectorControl),
                                                           options, progress);
            if (bar != null) {
                bar.setExtraMessage("warming up the controller");
            } else {
                say.println("ovs lab: warming up the controller");
            }
            JitWarmUp.run(2000);
            LinkRateDecision rate = new LinkRateDecision(linkBps, linkReason);
            // Workload by workload, each tried twice: one run lost to a stall of this shared machine
            // (a control request timing out) should not throw away the others.
            List<RunResult> results = new ArrayList<>();
            List<String> retried = new ArrayList<>();
            for (Workload w : ws) {
                try {
                    results.addAll(runner.runAll(List.of(w), modes, linkBps));
                } catch (java.io.IOException e) {
                    say.println("ovs lab: " + w.label() + " failed (" + e.getMessage() + "); running it again");
                    retried.add(w.label() + ": " + e.getMessage());
                    results.addAll(runner.runAll(List.of(w), modes, linkBps));
                }
            }
            String seeds = repeats == 1 ? "seed " + seed
                    : String.format(Locale.ROOT, "seeds %d-%d (%d runs of each workload and mode, flows pooled)",
                                    seed, seed + repeats - 1, repeats);
            String settings = String.format(Locale.ROOT, "Fabric: Open vSwitch (userspace datapath), k=4 fat tree of "
                    + "20 bridges over OpenFlow 1.3; Optimal on one bridge with all 16 hosts; hosts are network "
                    + "namespaces with Linux TCP (cubic). Flows: %d bytes; %s; threshold 80%%, hysteresis 5%%, "
                    + "damping %d ms, poll %d ms; mirror ports (OVSDB select-all mirrors, 128-byte snap length, "
                    + "tbf) at %.0f%% of link rate. \"Fabric answer (rules in force)\" is the last switch's "
                    + "OpenFlow barrier reply." + (mirrorEveryRun ? " Mirrors on in every fat-tree run (all modes)." : "")
                    + " Switch disconnects during the experiment: %d; refused flow-mods: %d",
                    flowBytes, seeds, dampingMs, pollMs, mirrorRateFraction * 100, launcher.disconnects(),
                    launcher.rejections())
                    + (retried.isEmpty() ? "" : "; workloads run again after a failed run (their first "
                    + "attempt's results dropped): " + String.join("; ", retried));
            new Report(results, rate, settings, pollMs).write(out);
            // Same report as the emulated lab's; its title names the fabric it ran on.
            Path md = out.resolve(Report.MARKDOWN);
            Files.writeString(md, Files.readString(md).replaceFirst("on the emulated fabric", "on the OVS fabric")
                    + "\n" + BarrierLatencySection.markdown(out.resolve(Report.LOOP_CSV)));
            if (notes != null && Files.exists(notes)) {
                Files.writeString(out.resolve(Report.MARKDOWN), "\n" + Files.readString(notes),
                                  StandardOpenOption.APPEND);
            }
        }
        say.println("planck-lab-ovs: report in " + out.resolve(Report.MARKDOWN));
        say.print(Files.readString(out.resolve(Report.SUMMARY_CSV)));
        return 0;
    }
}
