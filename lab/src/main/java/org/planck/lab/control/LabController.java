package org.planck.lab.control;

import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FlowMove;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.RuleKind;
import org.planck.api.telemetry.CongestionState;
import org.planck.api.telemetry.FlowRateEvent;
import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.PortCongestionNotice;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.api.telemetry.TelemetryEvent;
import org.planck.app.routing.InMemoryShadowMacAllocator;
import org.planck.app.routing.ShadowRoutePlanner;
import org.planck.app.te.CongestionRerouter;
import org.planck.app.te.FabricLoad;
import org.planck.lab.emu.CounterSnapshot;
import org.planck.lab.emu.EmulatorClient;
import org.planck.lab.emu.EmulatorException;
import org.planck.lab.emu.EmulatorTopology;
import org.planck.lab.emu.RuleOp;
import org.planck.lab.emu.RuleTranslation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

/**
 * The lab's controller: plans shadow-MAC routing for the emulated fabric with the app's
 * {@link ShadowRoutePlanner}, installs it through the emulator's control API, keeps the flows'
 * placements and rates in the app's {@link FabricLoad}, and relieves congested ports with the
 * app's {@link CongestionRerouter}: each move is one per-flow ingress rule, as in ONOS.
 *
 * <p>The controller is the authority on placement: a flow sits on the path its per-flow rule
 * names, else on the host pair's hash-chosen default. Telemetry and counters only update rates;
 * a flow's rate is the largest of the latest estimates of the switches that reported it.
 * Thread-safe (one lock; decisions are serialised as in the app).</p>
 */
public final class LabController implements TelemetrySink {
    /** Shadow paths per destination: k/2 = 2 disjoint core paths per pod pair on a k=4 fat tree, 4 trees. */
    public static final int PATHS_PER_DESTINATION = 4;

    private static final Logger log = LoggerFactory.getLogger(LabController.class);

    private final EmulatorClient emulator;
    private final TeMode mode;
    private final TeSettings settings;
    private final LoopLatencyLog latencies;

    private EmulatorTopology topology;
    private RoutingPlan plan;
    private FabricLoad load;
    private CongestionRerouter rerouter;
    /** Per-flow rules installed by moves: the flow's current path index. */
    private final Map<FlowKey, Integer> movedTo = new HashMap<>();
    /** Flows the workload announced (Poll mode attributes rule counters to them). */
    private final Map<FlowKey, MacAddress[]> expected = new LinkedHashMap<>();
    /** Ports marked congested by the controller's own view (no collector CLEARED will come). */
    private final Set<ConnectPoint> viewMarked = new HashSet<>();
    /** Latest collector estimate per flow and switch: a flow's rate is the largest (as in the app's TE loop). */
    private final Map<FlowKey, Map<DeviceId, Double>> ratesBySwitch = new HashMap<>();
    private CounterSnapshot lastCounters;

    private final AtomicLong moves = new AtomicLong();
    private final AtomicLong applyFailures = new AtomicLong();
    private final AtomicLong unknownFlowHosts = new AtomicLong();
    private final AtomicLong notices = new AtomicLong();

    /**
     * A controller.
     *
     * @param emulator  control API client
     * @param mode      what drives TE
     * @param settings  thresholds and intervals
     * @param latencies where decisions are recorded
     */
    public LabController(EmulatorClient emulator, TeMode mode, TeSettings settings, LoopLatencyLog latencies) {
        this.emulator = checkNotNull(emulator, "emulator");
        this.mode = checkNotNull(mode, "mode");
        this.settings = checkNotNull(settings, "settings");
        this.latencies = checkNotNull(latencies, "latencies");
    }

    /**
     * Reads the fabric's topology, plans shadow-MAC routing and installs every rule of the plan in
     * one atomic batch.
     *
     * @return the plan in force
     */
    public synchronized RoutingPlan install() {
        topology = emulator.topology();
        plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), PATHS_PER_DESTINATION).plan(topology.graph());
        emulator.applyRules(RuleTranslation.addAll(plan.rules()));
        load = new FabricLoad(plan);
        rerouter = new CongestionRerouter(load, settings.threshold(), settings.dampingMs() * 1_000_000L);
        movedTo.clear();
        viewMarked.clear();
        ratesBySwitch.clear();
        lastCounters = null;
        log.info("Installed {} rules for {}", plan.ruleCount(), topology.graph());
        return plan;
    }

    public synchronized EmulatorTopology topology() {
        checkState(topology != null, "not installed");
        return topology;
    }

    public synchronized RoutingPlan plan() {
        checkState(plan != null, "not installed");
        return plan;
    }

    public TeMode mode() {
        return mode;
    }

    /**
     * Announces a flow of the workload, so Poll mode can attribute rule counters to it.
     *
     * @param flow 5-tuple
     * @param src  source host MAC
     * @param dst  destination host MAC
     */
    public synchronized void expectFlow(FlowKey flow, MacAddress src, MacAddress dst) {
        expected.put(flow, new MacAddress[]{src, dst});
    }

    /**
     * A flow ended: its load leaves the view.
     *
     * @param flow 5-tuple
     */
    public synchronized void flowFinished(FlowKey flow) {
        expected.remove(flow);
        ratesBySwitch.remove(flow);
        if (load != null) {
            load.remove(flow);
            rerouter.forget(flow);
        }
    }

    /**
     * The path index a flow is on.
     *
     * @param flow 5-tuple
     * @param src  source host
     * @param dst  destination host
     * @return index (0 for same-edge pairs)
     */
    public synchronized int pathIndex(FlowKey flow, MacAddress src, MacAddress dst) {
        Integer moved = movedTo.get(flow);
        return moved != null ? moved : plan.defaultPathIndex(src, dst).orElse(0);
    }

    @Override
    public synchronized IngestResult ingest(TelemetryBatch batch, long receiptUs) {
        checkState(plan != null, "not installed");
        int accepted = 0;
        int noDevice = 0;
        int noPort = 0;
        List<PortCongestionNotice> congested = new ArrayList<>();
        long newestSampleUs = 0;
        for (TelemetryEvent e : batch.events()) {
            DeviceId d = e.port().deviceId();
            if (!topology.graph().hasSwitch(d)) {
                noDevice++;
                continue;
            }
            if (!topology.ports(d).contains(e.port().port().toLong())) {
                noPort++;
                continue;
            }
            accepted++;
            if (e instanceof FlowRateEvent) {
                FlowRateEvent f = (FlowRateEvent) e;
                Map<DeviceId, Double> bySwitch = ratesBySwitch.computeIfAbsent(f.flow(), k -> new HashMap<>());
                bySwitch.put(d, f.bytesPerSec());
                observeRate(f.flow(), bySwitch.values().stream().mapToDouble(Double::doubleValue).max().orElse(0));
                newestSampleUs = Math.max(newestSampleUs, f.lastSampleUs());
            } else if (e instanceof PortCongestionNotice) {
                PortCongestionNotice n = (PortCongestionNotice) e;
                notices.incrementAndGet();
                if (n.state() == CongestionState.CONGESTED) {
                    congested.add(n);
                } else {
                    rerouter.clearCongested(n.port());
                }
            }
        }
        if (mode == TeMode.PLANCK) {
            Set<ConnectPoint> handled = new HashSet<>();
            for (PortCongestionNotice n : congested) {
                handled.add(n.port());
                viewMarked.remove(n.port());
                decide(n.port(), OptionalDouble.of(n.utilization()), LoopLatencyLog.Trigger.NOTICE,
                       n.sampleUs(), receiptUs);
            }
            if (newestSampleUs > 0) {
                relieveLoadView(handled, newestSampleUs, receiptUs);
            }
            applyRound();
        }
        return new IngestResult(accepted, noDevice, noPort);
    }

    /**
     * Relieves ports the controller's own load view puts above threshold, including ports a
     * notice marked congested earlier that are still above it: notices come on transitions
     * only, while rate estimates keep changing what a move can achieve.
     */
    private void relieveLoadView(Set<ConnectPoint> handled, long sampleUs, long receiptUs) {
        for (ConnectPoint p : new ArrayList<>(viewMarked)) {
            if (load.utilisation(p) < settings.clearLevel()) {
                viewMarked.remove(p);
                rerouter.clearCongested(p);
            }
        }
        for (ConnectPoint p : load.portsAbove(settings.threshold())) {
            if (handled.contains(p)) {
                continue;
            }
            if (!rerouter.isCongested(p)) {
                viewMarked.add(p);
            }
            decide(p, OptionalDouble.empty(), LoopLatencyLog.Trigger.LOAD_VIEW, sampleUs, receiptUs);
        }
    }

    /**
     * Poll mode: feeds one counter snapshot. The first snapshot only sets the baseline; each
     * later one yields per-port utilisation and per-flow rates over the interval, and every
     * port above threshold is relieved, hottest first.
     *
     * @param now counters just read
     * @return ports found above threshold
     */
    public synchronized int onCounters(CounterSnapshot now) {
        checkState(plan != null, "not installed");
        CounterSnapshot prev = lastCounters;
        lastCounters = now;
        long dtUs = prev == null ? 0 : now.timeUs() - prev.timeUs();
        if (dtUs <= 0) {
            return 0;
        }
        double seconds = dtUs / 1e6;
        Map<String, List<FlowKey>> unmovedByPairRule = new HashMap<>();
        for (Map.Entry<FlowKey, MacAddress[]> e : expected.entrySet()) {
            FlowKey f = e.getKey();
            String key = movedTo.containsKey(f) ? perFlowRuleKey(f, e.getValue()[0], e.getValue()[1])
                    : hostPairRuleKey(e.getValue()[0], e.getValue()[1]);
            if (key != null) {
                unmovedByPairRule.computeIfAbsent(key, k -> new ArrayList<>()).add(f);
            }
        }
        for (Map.Entry<String, List<FlowKey>> e : unmovedByPairRule.entrySet()) {
            long delta = now.ruleBytes().getOrDefault(e.getKey(), 0L) - prev.ruleBytes().getOrDefault(e.getKey(), 0L);
            double rate = Math.max(0, delta) / seconds / e.getValue().size();
            for (FlowKey f : e.getValue()) {
                observeRate(f, rate);
            }
        }
        long receiptUs = nowUs();
        List<Map.Entry<ConnectPoint, Double>> hot = new ArrayList<>();
        for (Map.Entry<ConnectPoint, Long> e : now.txBytes().entrySet()) {
            Optional<Long> cap = topology.graph().portCapacityBps(e.getKey());
            Long before = prev.txBytes().get(e.getKey());
            if (cap.isEmpty() || before == null) {
                continue;
            }
            double util = Math.max(0, e.getValue() - before) * 8.0 / seconds / cap.get();
            if (util > settings.threshold()) {
                hot.add(Map.entry(e.getKey(), util));
            } else if (util < settings.clearLevel()) {
                rerouter.clearCongested(e.getKey());
            }
        }
        if (mode == TeMode.POLL) {
            hot.sort((a, b) -> Double.compare(b.getValue(), a.getValue()));
            for (Map.Entry<ConnectPoint, Double> h : hot) {
                decide(h.getKey(), OptionalDouble.of(h.getValue()), LoopLatencyLog.Trigger.POLL,
                       now.timeUs(), receiptUs);
            }
            applyRound();
        }
        return hot.size();
    }

    private String hostPairRuleKey(MacAddress src, MacAddress dst) {
        Optional<FabricHost> s = topology.graph().host(src);
        if (s.isEmpty()) {
            return null;
        }
        for (PlannedRule r : plan.rulesAt(s.get().edge())) {
            if (r.kind() == RuleKind.INGRESS_HOST_PAIR && r.ethDst().equals(dst)
                    && r.ethSrc().map(src::equals).orElse(false)) {
                return RuleTranslation.add(r).ruleKey();
            }
        }
        return null;
    }

    private String perFlowRuleKey(FlowKey f, MacAddress src, MacAddress dst) {
        return RuleTranslation.add(plan.flowRule(f, src, dst, movedTo.get(f))).ruleKey();
    }

    private void observeRate(FlowKey flow, double bytesPerSec) {
        if (load.updateRate(flow, bytesPerSec)) {
            return;
        }
        FabricGraph g = topology.graph();
        Optional<FabricHost> s = g.hostByIp(flow.src());
        Optional<FabricHost> d = g.hostByIp(flow.dst());
        if (s.isEmpty() || d.isEmpty() || s.get().equals(d.get())) {
            unknownFlowHosts.incrementAndGet();
            return;
        }
        MacAddress src = s.get().mac();
        MacAddress dst = d.get().mac();
        load.place(flow, FlowPlacement.of(src, dst, pathIndex(flow, src, dst), bytesPerSec));
    }

    /** A decision whose moves await the round's single rule batch. */
    private static final class Decision {
        final LoopLatencyLog.Trigger trigger;
        final ConnectPoint port;
        final long sampleUs;
        final long receiptUs;
        final long decisionUs;
        final List<FlowMove> moves;

        Decision(LoopLatencyLog.Trigger trigger, ConnectPoint port, long sampleUs, long receiptUs, long decisionUs,
                 List<FlowMove> moves) {
            this.trigger = trigger;
            this.port = port;
            this.sampleUs = sampleUs;
            this.receiptUs = receiptUs;
            this.decisionUs = decisionUs;
            this.moves = moves;
        }
    }

    /** Decisions of the current round (one telemetry batch or one poll). */
    private final List<Decision> round = new ArrayList<>();

    /** One TE decision on a port; its moves join the round's rule batch. */
    private void decide(ConnectPoint port, OptionalDouble utilisation, LoopLatencyLog.Trigger trigger,
                        long sampleUs, long receiptUs) {
        List<FlowMove> chosen = rerouter.relieve(port, utilisation, System.nanoTime());
        long decisionUs = nowUs();
        if (chosen.isEmpty()) {
            if (trigger != LoopLatencyLog.Trigger.LOAD_VIEW) {
                latencies.record(new LoopLatencyLog.Entry(trigger, port, sampleUs, receiptUs, decisionUs, -1, -1, 0));
            }
            return;
        }
        round.add(new Decision(trigger, port, sampleUs, receiptUs, decisionUs, chosen));
    }

    /**
     * Installs every move of the round as per-flow ingress rules in one atomic batch: one
     * round trip to the fabric however many ports were relieved.
     */
    private void applyRound() {
        if (round.isEmpty()) {
            return;
        }
        // A flow moved twice in one round: only its last target is installed.
        Map<FlowKey, FlowMove> last = new LinkedHashMap<>();
        for (Decision d : round) {
            for (FlowMove m : d.moves) {
                last.put(m.flow(), m);
            }
        }
        List<RuleOp> ops = new ArrayList<>(last.size());
        for (FlowMove m : last.values()) {
            ops.add(RuleTranslation.add(plan.flowRule(m.flow(), m.from().src(), m.from().dst(), m.toIndex())));
        }
        long appliedUs;
        long answeredUs;
        try {
            appliedUs = emulator.applyRules(ops);
            answeredUs = nowUs();
        } catch (EmulatorException e) {
            // The fabric did not take the moves: the view must not pretend it did.
            applyFailures.incrementAndGet();
            for (int i = round.size() - 1; i >= 0; i--) {
                for (FlowMove m : round.get(i).moves) {
                    load.place(m.flow(), m.from());
                }
            }
            log.warn("Installing {} moves failed: {}", ops.size(), e.getMessage());
            round.clear();
            return;
        }
        for (Decision d : round) {
            for (FlowMove m : d.moves) {
                movedTo.put(m.flow(), m.toIndex());
            }
            moves.addAndGet(d.moves.size());
            latencies.record(new LoopLatencyLog.Entry(d.trigger, d.port, d.sampleUs, d.receiptUs, d.decisionUs,
                                                      appliedUs, answeredUs, d.moves.size()));
        }
        round.clear();
    }

    /**
     * Flows moved by TE so far.
     *
     * @return count
     */
    public long moves() {
        return moves.get();
    }

    /**
     * Rule batches of moves the fabric refused.
     *
     * @return count
     */
    public long applyFailures() {
        return applyFailures.get();
    }

    /**
     * Flow-rate observations whose hosts are not in the fabric.
     *
     * @return count
     */
    public long unknownFlowHosts() {
        return unknownFlowHosts.get();
    }

    /**
     * Congestion notices received (either state).
     *
     * @return count
     */
    public long notices() {
        return notices.get();
    }

    /**
     * Load view utilisation of a port (for reports and tests).
     *
     * @param port egress port
     * @return fraction of capacity
     */
    public synchronized double utilisation(ConnectPoint port) {
        return load == null ? 0 : load.utilisation(port);
    }

    /**
     * Now, µs since the epoch: comparable with the collector's capture stamps and the
     * real-time emulator's clock.
     *
     * @return µs
     */
    public static long nowUs() {
        Instant t = Instant.now();
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
    }
}
