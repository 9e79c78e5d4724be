package org.planck.lab.experiment;

import org.onlab.packet.IpAddress;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.te.TeMode;
import org.planck.lab.control.CollectorClient;
import org.planck.lab.control.CollectorForwarding;
import org.planck.lab.control.LabController;
import org.planck.lab.control.LoopLatencyLog;
import org.planck.lab.control.TeSettings;
import org.planck.lab.control.TelemetryEndpoint;
import org.planck.lab.emu.EmulatedFlow;
import org.planck.lab.emu.EmulatorClient;
import org.planck.lab.emu.EmulatorException;
import org.planck.lab.emu.EmulatorTopology;
import org.planck.lab.emu.FabricStatus;
import org.planck.lab.emu.FlowSpec;
import org.planck.lab.emu.MirrorSpec;
import org.planck.lab.sched.LoopThreads;
import org.planck.lab.view.FabricViewServer;
import org.planck.lab.view.LabFabricView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Runs the experiment: for each (workload, mode) a fresh fabric, the lab controller installing
 * shadow-MAC routing, the workload's flows, and the mode's TE loop until every flow finished.
 */
public final class ExperimentRunner {
    private static final Logger log = LoggerFactory.getLogger(ExperimentRunner.class);
    /** Largest lag behind real time at which 10 Gb/s counts as kept. */
    public static final long REALTIME_LAG_LIMIT_US = 1000;
    private static final int DPORT = 5001;
    private static final int SPORT_BASE = 10000;
    private static final int FLOWS_PER_RUN_MAX = 256;
    private static final int RUNS_BEFORE_PORT_REUSE = 200;
    /** Poll-1s mode's period. */
    public static final long POLL_1S_MS = 1000;

    /** How the experiment runs. */
    public static final class Options {
        /** Most runs per workload and mode. */
        public static final int MAX_REPEATS = 10;
        long flowBytes = 10L << 20;
        FabricViewServer liveView;
        long seed = 1;
        int repeats = 1;
        int rounds = 1;
        TeSettings te = TeSettings.defaults();
        String controlListen = "127.0.0.1:9870";
        String mirrorInterface;
        double mirrorRateFraction = 0.1;
        long mirrorBufferBytes = 30_000;
        int snapLen = 128;
        String collectorId = "c1";
        long pollStepMs = 50;
        boolean fabricSpin;
        int pintPathBits;
        PintConformanceLog pintLog;
        IntSourceSpec intSource;
        IntSourceLog intLog;
        org.planck.lab.control.IntQueueCongestion.Settings congestion;

        /**
         * Telemetry of the loop: INT on the fabric's switches (null: none), and which congestion
         * signal PlanckTE acts on with which INT queue thresholds (null: mirrors only).
         *
         * @param source     INT on the fabric, or null
         * @param congestion congestion signal and queue thresholds, or null
         * @return this
         */
        /**
         * The INT log of the runs, when the fabric runs INT.
         *
         * @return log, or null
         */
        public IntSourceLog intLog() {
            return intLog;
        }

        public Options telemetry(IntSourceSpec source, org.planck.lab.control.IntQueueCongestion.Settings congestion) {
            intSource = source;
            this.congestion = congestion;
            intLog = source != null ? new IntSourceLog() : null;
            return this;
        }

        /**
         * PINT path tracing on the fabric's switches; PlanckTE runs record the controller's
         * conformance view in the log.
         *
         * @param bits path digest bits, 0 (off) to 16
         * @param log  where each PlanckTE run's conformance view goes, or null
         * @return these options
         */
        public Options pint(int bits, PintConformanceLog log) {
            checkArgument(bits >= 0 && bits <= 16, "PINT path bits must be 0-16");
            pintPathBits = bits;
            pintLog = log;
            return this;
        }

        public Options flowBytes(long v) {
            checkArgument(v > 0, "flow size must be positive");
            flowBytes = v;
            return this;
        }

        public Options seed(long v) {
            seed = v;
            return this;
        }

        /**
         * Runs each workload and mode this many times, with seeds {@code seed, seed + 1, ...};
         * their flows are pooled in one result per workload and mode.
         *
         * @param v 1 to {@value #MAX_REPEATS}
         * @return these options
         */
        public Options repeats(int v) {
            checkArgument(v >= 1 && v <= MAX_REPEATS, "repeats must be in 1..%s", MAX_REPEATS);
            repeats = v;
            return this;
        }

        /** Most rounds per run. */
        public static final int MAX_ROUNDS = 15;

        /**
         * Rounds of a workload in one run (see {@link Workload#destinations(int, long, int)}):
         * each host's flows of every round, one after another.
         *
         * @param v 1 to {@value #MAX_ROUNDS}
         * @return these options
         */
        public Options rounds(int v) {
            checkArgument(v >= 1 && v <= MAX_ROUNDS, "rounds must be in 1..%s", MAX_ROUNDS);
            rounds = v;
            return this;
        }

        /** Live fabric view that shows each run's controller, or null. */
        public Options liveView(FabricViewServer v) {
            liveView = v;
            return this;
        }

        public Options te(TeSettings v) {
            te = checkNotNull(v);
            return this;
        }

        public Options controlListen(String v) {
            controlListen = checkNotNull(v);
            return this;
        }

        /**
         * Interface the fabric writes mirror frames to (PlanckTE runs need it).
         *
         * @param v interface name
         * @return this
         */
        public Options mirrorInterface(String v) {
            mirrorInterface = v;
            return this;
        }

        public Options mirrorRateFraction(double v) {
            checkArgument(v > 0 && v <= 1, "mirror rate fraction must be in (0, 1]");
            mirrorRateFraction = v;
            return this;
        }

        public Options mirrorBufferBytes(long v) {
            checkArgument(v > 0, "mirror buffer must be positive");
            mirrorBufferBytes = v;
            return this;
        }

        /**
         * Whether the fabric busy-waits for each timeslot (one core busy) instead of sleeping.
         *
         * @param v spin
         * @return this
         */
        public Options fabricSpin(boolean v) {
            fabricSpin = v;
            return this;
        }

        public Options collectorId(String v) {
            collectorId = checkNotNull(v);
            return this;
        }

        public long flowBytes() {
            return flowBytes;
        }

        public TeSettings te() {
            return te;
        }

        public double mirrorRateFraction() {
            return mirrorRateFraction;
        }
    }

    private final FabricLauncher launcher;
    private final TelemetryEndpoint endpoint;
    private final CollectorClient collector;
    private final Options options;
    private final RunProgress progress;
    private final AtomicLong generation = new AtomicLong(System.currentTimeMillis());
    /** Runs so far: each run's flows get their own source ports, so the collector never mixes runs. */
    private final AtomicLong runCount = new AtomicLong();

    /**
     * A runner.
     *
     * @param launcher  starts a fabric per run
     * @param endpoint  telemetry endpoint (PlanckTE runs), or null
     * @param collector collector control client (PlanckTE runs), or null
     * @param options   options
     * @param progress  progress listener
     */
    public ExperimentRunner(FabricLauncher launcher, TelemetryEndpoint endpoint, CollectorClient collector,
                            Options options, RunProgress progress) {
        this.launcher = checkNotNull(launcher, "launcher");
        this.endpoint = endpoint;
        this.collector = collector;
        this.options = checkNotNull(options, "options");
        this.progress = checkNotNull(progress, "progress");
    }

    /**
     * Flows a run of a workload completes.
     *
     * @param w      workload
     * @param rounds rounds per run
     * @return count
     */
    public static int flowCount(Workload w, int rounds) {
        return w.flowCount(FabricSpec.HOSTS, rounds);
    }

    /**
     * Flows a run of a workload completes with these options.
     *
     * @param w workload
     * @return count
     */
    public int flowCount(Workload w) {
        return flowCount(w, options.rounds);
    }

    /**
     * Decides the link rate: a stride(8) calibration run under Static at 10 Gb/s, then the
     * emulator's largest lag behind real time.
     *
     * @param calibrationBytes flow size of the calibration run
     * @return decision
     * @throws IOException if the fabric cannot run
     */
    public LinkRateDecision decideLinkRate(long calibrationBytes) throws IOException {
        long savedBytes = options.flowBytes;
        int savedRounds = options.rounds;
        options.flowBytes(calibrationBytes).rounds(1);
        try {
            RunResult r = run(Workload.STRIDE8, RoutingMode.STATIC, LinkRateDecision.TEN_GBPS);
            return LinkRateDecision.fromCalibration(r.maxLagUs(), REALTIME_LAG_LIMIT_US);
        } finally {
            options.flowBytes(savedBytes).rounds(savedRounds);
        }
    }

    /**
     * Runs every (workload, mode) pair, workloads outer.
     *
     * @param workloads workloads
     * @param modes     modes
     * @param linkBps   link rate
     * @return results in run order
     * @throws IOException if a fabric cannot run or a run does not finish
     */
    public List<RunResult> runAll(List<Workload> workloads, List<RoutingMode> modes, long linkBps)
            throws IOException {
        List<RunResult> out = new ArrayList<>();
        for (Workload w : workloads) {
            // Repeats go round the modes, so a slow spell of the machine hits every mode alike.
            Map<RoutingMode, List<RunResult>> byMode = new LinkedHashMap<>();
            for (int r = 0; r < options.repeats; r++) {
                for (RoutingMode m : modes) {
                    byMode.computeIfAbsent(m, k -> new ArrayList<>()).add(run(w, m, linkBps, options.seed + r));
                }
            }
            byMode.values().forEach(runs -> out.add(RunResult.pooled(runs)));
        }
        return out;
    }

    /**
     * One run.
     *
     * @param workload workload
     * @param mode     routing mode
     * @param linkBps  link rate
     * @return its result
     * @throws IOException if the fabric cannot run or the flows do not finish in time
     */
    public RunResult run(Workload workload, RoutingMode mode, long linkBps) throws IOException {
        return run(workload, mode, linkBps, options.seed);
    }

    private RunResult run(Workload workload, RoutingMode mode, long linkBps, long seed) throws IOException {
        if (mode == RoutingMode.PLANCK) {
            checkArgument(endpoint != null && collector != null && options.mirrorInterface != null,
                          "PlanckTE runs need the telemetry endpoint, a collector and a mirror interface");
        }
        progress.runStarted(workload.label() + " / " + mode.label(), flowCount(workload));
        try (FabricLauncher.RunningFabric fabric = launcher.start(
                new FabricSpec(mode.shape(), linkBps, options.controlListen, options.fabricSpin,
                               options.pintPathBits).withInt(options.intSource))) {
            return runOn(fabric.control(), workload, mode, linkBps, seed);
        } catch (EmulatorException e) {
            throw new IOException(workload.label() + " / " + mode.label() + ": " + e.getMessage(), e);
        }
    }

    private RunResult runOn(URI control, Workload workload, RoutingMode mode, long linkBps, long seed)
            throws IOException {
        EmulatorClient emu = new EmulatorClient(control);
        // The JDK's HTTP threads carry every request and answer of the loop (the telemetry
        // server's dispatcher, the clients' selectors), and a stop-the-world collection holds
        // the loop until its workers finish: same priority as the loop's own threads.
        LoopThreads.promoteThreadsNamed(n -> LoopThreads.isJdkHttpThread(n) || LoopThreads.isStopTheWorldThread(n));
        LoopLatencyLog latencies = new LoopLatencyLog(1_000_000);
        LabController controller = new LabController(emu, mode.te(), options.te, latencies);
        if (options.congestion != null) {
            controller.useCongestion(options.congestion.newState());
        }
        controller.install();
        if (options.liveView != null) {
            options.liveView.show(new LabFabricView(controller, latencies, workload.label() + " / " + mode.label()));
        }
        EmulatorTopology topo = controller.topology();
        List<FabricHost> hosts = new ArrayList<>(topo.graph().hosts());
        hosts.sort(Comparator.comparing(h -> firstIp(h).toOctets(), ExperimentRunner::compareOctets));
        checkArgument(hosts.size() == FabricSpec.HOSTS, "fabric has %s hosts, the experiment needs %s",
                      hosts.size(), FabricSpec.HOSTS);

        // Every mode mirrors when a collector is there, so the fabric and the collector carry the
        // same load in every run and a run's lag behind real time does not favour one mode;
        // only PlanckTE's controller receives what the collector makes of the samples.
        boolean mirrored = mode == RoutingMode.PLANCK
                || (collector != null && endpoint != null && options.mirrorInterface != null);
        if (mirrored) {
            List<MirrorSpec> mirrors = new ArrayList<>();
            for (DeviceId d : topo.graph().switches()) {
                mirrors.add(new MirrorSpec(d, (int) EmulatorTopology.switchNumber(d),
                                           Math.max(1, (long) (linkBps * options.mirrorRateFraction)),
                                           options.mirrorBufferBytes, options.snapLen));
            }
            collector.pushConfig(options.te);
            collector.pushForwarding(CollectorForwarding.build(options.collectorId, generation.incrementAndGet(),
                                                               topo, controller.plan()));
            if (mode == RoutingMode.PLANCK) {
                endpoint.attach(controller);
            }
            emu.putMirrors(emu.interfaceSink(options.mirrorInterface), mirrors);
        }

        List<List<Integer>> dsts = workload.destinations(hosts.size(), seed, options.rounds);
        int sportBase = SPORT_BASE + (int) (runCount.getAndIncrement() % RUNS_BEFORE_PORT_REUSE) * FLOWS_PER_RUN_MAX;
        List<Deque<FlowSpec>> sequences = new ArrayList<>();
        Map<Long, FlowKey> keys = new HashMap<>();
        long id = 0;
        for (int x = 0; x < hosts.size(); x++) {
            Deque<FlowSpec> seq = new ArrayDeque<>();
            for (int y : dsts.get(x)) {
                id++;
                FabricHost s = hosts.get(x);
                FabricHost d = hosts.get(y);
                FlowSpec f = new FlowSpec(id, s.mac(), d.mac(), options.flowBytes, 0,
                                          sportBase + (int) id, DPORT);
                keys.put(id, FlowKey.of(firstIp(s), firstIp(d), 6, f.sport(), f.dport()));
                seq.add(f);
            }
            sequences.add(seq);
        }
        int total = (int) id;
        checkArgument(total < FLOWS_PER_RUN_MAX, "at most %s flows per run", FLOWS_PER_RUN_MAX - 1);
        long longestSequenceBytes = 0;
        for (Deque<FlowSpec> s : sequences) {
            longestSequenceBytes = Math.max(longestSequenceBytes, s.size() * options.flowBytes);
        }
        // Generous: every host's sequence at a twentieth of line rate, plus start-up.
        long timeoutMs = 30_000 + longestSequenceBytes * 8 * 20 * 1000 / linkBps;

        ScheduledExecutorService poller = null;
        AtomicLong pollErrors = new AtomicLong();
        if (mode.te() == TeMode.POLL) {
            // Same priority as PlanckTE's loop threads: the comparison is of the signals, not of
            // who gets the CPU.
            poller = Executors.newSingleThreadScheduledExecutor(LoopThreads.factory("lab-poll"));
            poller.scheduleAtFixedRate(() -> {
                try {
                    controller.onCounters(emu.counters());
                } catch (RuntimeException e) {
                    pollErrors.incrementAndGet();
                    log.warn("poll failed: {}", e.getMessage());
                } finally {
                    // The poll's moves, handed to the fabric by this thread as PlanckTE's are.
                    controller.installPending();
                }
            }, 0, pollIntervalMs(mode), TimeUnit.MILLISECONDS);
        }

        Map<Long, FlowSpec> running = new HashMap<>();
        List<FlowResult> results = new ArrayList<>();
        try {
            List<FlowSpec> first = new ArrayList<>();
            for (Deque<FlowSpec> s : sequences) {
                FlowSpec f = s.poll();
                if (f != null) {
                    first.add(f);
                }
            }
            start(emu, controller, first, keys, running);
            Map<String, Deque<FlowSpec>> bySource = new HashMap<>();
            for (int x = 0; x < hosts.size(); x++) {
                bySource.put(hosts.get(x).mac().toString().toLowerCase(), sequences.get(x));
            }
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (results.size() < total) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IOException(workload.label() + " / " + mode.label() + ": only " + results.size()
                                          + " of " + total + " flows finished within " + timeoutMs + " ms");
                }
                sleep(options.pollStepMs);
                List<FlowSpec> next = new ArrayList<>();
                for (EmulatedFlow f : emu.flows()) {
                    FlowSpec spec = running.get(f.id());
                    if (spec == null || !f.done()) {
                        continue;
                    }
                    running.remove(f.id());
                    results.add(new FlowResult(seed, f.id(), f.src(), f.dst(), f.bytes(), f.startUs(),
                                               f.finishUs().getAsLong(), f.retransmits(), f.timeouts()));
                    // At the loop's priority: the controller's lock is the loop's.
                    FlowKey ended = keys.get(f.id());
                    LoopThreads.atLoopPriority(() -> controller.flowFinished(ended));
                    progress.flowFinished();
                    Deque<FlowSpec> seq = bySource.get(spec.src().toString().toLowerCase());
                    FlowSpec n = seq == null ? null : seq.poll();
                    if (n != null) {
                        next.add(n);
                    }
                }
                if (!next.isEmpty()) {
                    start(emu, controller, next, keys, running);
                }
            }
        } finally {
            if (poller != null) {
                poller.shutdownNow();
            }
            if (options.pintLog != null && mode == RoutingMode.PLANCK) {
                options.pintLog.add(workload.label(), mode.label(), seed, controller.conformance(),
                                    controller.pintCounters());
            }
            if (endpoint != null) {
                endpoint.attach(null);
            }
            // Rule batches still in flight are answered (or refused) before the run is read.
            controller.close();
        }
        FabricStatus status = emu.status();
        if (options.intLog != null) {
            options.intLog.add(workload.label(), mode.label(), seed, status.intStage(), controller.intPorts(),
                               latencies.entries());
        }
        results.sort(Comparator.comparingLong(FlowResult::id));
        log.info("{} / {}: {} flows, {} moves, max lag {} us", workload.label(), mode.label(), results.size(),
                 controller.moves(), status.maxLagUs());
        return new RunResult(workload, mode, linkBps, results, latencies.entries(), controller.moves(),
                             controller.notices(), status.maxLagUs(), status.unmatched(), status.mirrorFrames(),
                             status.mirrorDrops(), controller.decidedMoves());
    }

    /**
     * How often a polling mode reads the counters: Poll-1s every second, Poll every
     * {@code --poll-ms}.
     *
     * @param mode a mode
     * @return ms (0 for modes that do not poll)
     */
    public long pollIntervalMs(RoutingMode mode) {
        switch (mode) {
            case POLL:
                return options.te.pollIntervalMs();
            case POLL_1S:
                return POLL_1S_MS;
            default:
                return 0;
        }
    }

    private static void start(EmulatorClient emu, LabController controller, List<FlowSpec> flows,
                              Map<Long, FlowKey> keys, Map<Long, FlowSpec> running) {
        LoopThreads.atLoopPriority(() -> {
            for (FlowSpec f : flows) {
                controller.expectFlow(keys.get(f.id()), f.src(), f.dst());
            }
        });
        for (FlowSpec f : flows) {
            running.put(f.id(), f);
        }
        emu.startFlows(flows);
    }

    private static IpAddress firstIp(FabricHost h) {
        checkArgument(!h.ips().isEmpty(), "host %s has no IP address", h);
        return h.ips().iterator().next();
    }

    private static int compareOctets(byte[] a, byte[] b) {
        for (int i = 0; i < Math.min(a.length, b.length); i++) {
            int c = Integer.compare(a[i] & 0xff, b[i] & 0xff);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.length, b.length);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
