package org.planck.app.admission;

import org.onlab.packet.MacAddress;
import org.onlab.util.Tools;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.event.AbstractListenerManager;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.meter.MeterService;
import org.onosproject.store.serializers.KryoNamespaces;
import org.onosproject.store.service.AtomicIdGenerator;
import org.onosproject.store.service.AtomicValue;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.Serializer;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.planck.api.FlowKey;
import org.planck.api.ShadowRouteService;
import org.planck.api.admission.AdmissionCounters;
import org.planck.api.admission.AdmissionRejectedException;
import org.planck.api.admission.AdmissionService;
import org.planck.api.admission.Guarantee;
import org.planck.api.admission.GuaranteeEvent;
import org.planck.api.admission.GuaranteeHop;
import org.planck.api.admission.GuaranteeListener;
import org.planck.api.admission.GuaranteeRequest;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.te.MoveGuard;
import org.planck.app.admission.algo.AdmissionPlanner;
import org.planck.app.admission.algo.AdmissionVerdict;
import org.planck.app.admission.algo.FlowDemand;
import org.planck.app.admission.algo.GuaranteePath;
import org.planck.app.admission.algo.SwitchModel;
import org.planck.app.admission.algo.SwitchModelJson;
import org.slf4j.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Dictionary;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import static org.planck.api.admission.AdmissionRejectedException.Reason.BAD_REQUEST;
import static org.planck.api.admission.AdmissionRejectedException.Reason.NOT_ROUTED;
import static org.planck.api.admission.AdmissionRejectedException.Reason.NO_CAPACITY;
import static org.planck.app.admission.OsgiPropertyConstants.*;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * Admission control (Loko): admits a flow onto a shadow path only if its delay bound and every
 * admitted flow's bound stay within their deadlines under the switch models, pins it there with
 * the routing's per-flow placement and polices its token bucket with a meter
 * ({@link GuaranteeMeters}). Guarantees live in a consistent map; a generation counter makes
 * concurrent admissions on different nodes optimistic: a guarantee is written first (so every
 * node counts it from then on), then the generation it was decided on is advanced by
 * compare-and-set; if another node advanced it meanwhile, the guarantee is withdrawn and the
 * decision retried on the new state.
 *
 * <p>It is also traffic engineering's {@link MoveGuard}.</p>
 */
@Component(immediate = true, service = {AdmissionService.class, MoveGuard.class},
        property = {
                MODEL_FILE + "=" + MODEL_FILE_DEFAULT,
                SERVICE_RATE + ":Long=" + SERVICE_RATE_DEFAULT,
                SERVICE_LATENCY + ":Long=" + SERVICE_LATENCY_DEFAULT,
                PACKET_OVERHEAD + ":Long=" + PACKET_OVERHEAD_DEFAULT,
                MAX_BACKLOG + ":Long=" + MAX_BACKLOG_DEFAULT,
                BEST_EFFORT_RATE + ":Long=" + BEST_EFFORT_RATE_DEFAULT,
                BEST_EFFORT_BURST + ":Long=" + BEST_EFFORT_BURST_DEFAULT,
                MTU + ":Integer=" + MTU_DEFAULT,
                SCOPE + "=" + SCOPE_DEFAULT,
                MOVE_BURST + ":Long=" + MOVE_BURST_DEFAULT,
        })
public class AdmissionManager extends AbstractListenerManager<GuaranteeEvent, GuaranteeListener>
        implements AdmissionService, MoveGuard {

    /** Application id of meters and metered ingress rules (kept apart from routing's rules). */
    public static final String APP_NAME = "org.planck.app.admission";
    private static final int COMMIT_ATTEMPTS = 5;

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ShadowRouteService routeService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected MeterService meterService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowRuleService flowRuleService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ComponentConfigService cfgService;

    private ConsistentMap<String, Guarantee> guarantees;
    private AtomicValue<Long> generation;
    private AtomicIdGenerator ids;
    private GuaranteeMeters meters;

    /** Switch model file from the switch benchmark; empty to use the properties. */
    private String switchModelFile = MODEL_FILE_DEFAULT;
    /** Shared service rate R of every switch, work bytes/s. */
    private long serviceRateBytesPerSec = SERVICE_RATE_DEFAULT;
    /** Shared service latency T of every switch, µs. */
    private long serviceLatencyMicros = SERVICE_LATENCY_DEFAULT;
    /** Per-packet cost, work bytes. */
    private long perPacketOverheadBytes = PACKET_OVERHEAD_DEFAULT;
    /** Bytes a switch holds without loss. */
    private long maxBacklogBytes = MAX_BACKLOG_DEFAULT;
    /** Work rate reserved for unguaranteed (policed) traffic per switch, bytes/s. */
    private long bestEffortRateBytesPerSec = BEST_EFFORT_RATE_DEFAULT;
    /** Burst of unguaranteed traffic per switch, work bytes. */
    private long bestEffortBurstBytes = BEST_EFFORT_BURST_DEFAULT;
    /** Largest frame anyone may send, bytes. */
    private int mtuBytes = MTU_DEFAULT;
    /**
     * SHARED_SWITCH (Loko, FIFO), SHARED_SWITCH_ANY_ORDER (Loko, any order between inputs: OVS
     * userspace) or PER_PORT (independent ports: for comparison only).
     */
    private String analysisScope = SCOPE_DEFAULT;
    /** A flow TE moves is assumed to burst this long at its rate, plus one MTU, µs. */
    private long teMoveBurstMicros = MOVE_BURST_DEFAULT;

    private SwitchModel model = new SwitchModel(SERVICE_RATE_DEFAULT, SERVICE_LATENCY_DEFAULT * 1000,
            PACKET_OVERHEAD_DEFAULT, MAX_BACKLOG_DEFAULT, BEST_EFFORT_RATE_DEFAULT, BEST_EFFORT_BURST_DEFAULT);
    private AdmissionPlanner.Scope scope = AdmissionPlanner.Scope.valueOf(SCOPE_DEFAULT);

    /** The planner as of {@link #plannerGeneration}; rebuilt from the map when it lags. */
    private AdmissionPlanner planner;
    private long plannerGeneration = -1;

    private final LongAdder admitted = new LongAdder();
    private final LongAdder badRequests = new LongAdder();
    private final LongAdder noCapacity = new LongAdder();
    private final LongAdder vetoes = new LongAdder();
    private final AtomicLong maxDecisionMicros = new AtomicLong();

    @Activate
    protected void activate(ComponentContext context) {
        cfgService.registerProperties(getClass());
        ApplicationId appId = coreService.registerApplication(APP_NAME);
        guarantees = storageService.<String, Guarantee>consistentMapBuilder()
                .withName("planck-guarantees").withSerializer(AdmissionSerializers.SERIALIZER).build();
        generation = storageService.<Long>atomicValueBuilder().withName("planck-guarantees-generation")
                .withSerializer(Serializer.using(KryoNamespaces.BASIC)).build().asAtomicValue();
        ids = storageService.atomicIdGeneratorBuilder().withName("planck-guarantee-ids").build()
                .asAtomicIdGenerator();
        meters = new GuaranteeMeters(meterService, flowRuleService, appId);
        readProperties(context == null ? null : context.getProperties());
        eventDispatcher.addSink(GuaranteeEvent.class, listenerRegistry);
        log.info("Started with {} ({}, MTU {} B)", model, scope, mtuBytes);
    }

    @Modified
    protected void modified(ComponentContext context) {
        readProperties(context == null ? null : context.getProperties());
    }

    @Deactivate
    protected void deactivate() {
        eventDispatcher.removeSink(GuaranteeEvent.class);
        cfgService.unregisterProperties(getClass(), false);
        log.info("Stopped");
    }

    private void readProperties(Dictionary<?, ?> props) {
        if (props == null) {
            return;
        }
        try {
            SwitchModel m = new SwitchModel(
                    longProperty(props, SERVICE_RATE, model.serviceRateBytesPerSec()),
                    longProperty(props, SERVICE_LATENCY, model.serviceLatencyNanos() / 1000) * 1000,
                    longProperty(props, PACKET_OVERHEAD, model.perPacketOverheadBytes()),
                    longProperty(props, MAX_BACKLOG, model.maxBacklogBytes()),
                    longProperty(props, BEST_EFFORT_RATE, model.bestEffortRateBytesPerSec()),
                    longProperty(props, BEST_EFFORT_BURST, model.bestEffortBurstBytes()));
            int mtu = (int) longProperty(props, MTU, mtuBytes);
            String s = Tools.get(props, SCOPE);
            AdmissionPlanner.Scope sc = s == null ? scope : AdmissionPlanner.Scope.valueOf(s.trim());
            long burst = longProperty(props, MOVE_BURST, teMoveBurstMicros);
            String file = Tools.get(props, MODEL_FILE);
            if (file != null && !file.isBlank()) {
                try {
                    m = SwitchModelJson.parse(Files.readString(Path.of(file.trim())), m);
                } catch (IOException e) {
                    throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
                }
                switchModelFile = file.trim();
            }
            if (mtu <= 0 || burst < 0) {
                throw new IllegalArgumentException("mtu must be > 0 and move burst >= 0");
            }
            configure(m, mtu, sc, burst);
        } catch (IllegalArgumentException e) {
            log.warn("Ignoring admission properties: {}", e.getMessage());
        }
    }

    private static long longProperty(Dictionary<?, ?> props, String name, long dflt) {
        String v = Tools.get(props, name);
        return v == null || v.isBlank() ? dflt : Long.parseLong(v.trim());
    }

    /** The analysis scope in force. */
    synchronized AdmissionPlanner.Scope scope() {
        return scope;
    }

    /**
     * Sets the switch model, MTU and analysis scope. Admitted guarantees stay; their bounds are
     * recomputed under the new model ({@link #currentBounds} is empty if they no longer fit).
     *
     * @param m          model of every switch
     * @param mtu        MTU, bytes
     * @param sc         analysis scope
     * @param moveBurstUs burst window assumed for flows TE moves, µs
     */
    synchronized void configure(SwitchModel m, int mtu, AdmissionPlanner.Scope sc, long moveBurstUs) {
        this.model = m;
        this.mtuBytes = mtu;
        this.scope = sc;
        this.teMoveBurstMicros = moveBurstUs;
        this.serviceRateBytesPerSec = m.serviceRateBytesPerSec();
        this.serviceLatencyMicros = m.serviceLatencyNanos() / 1000;
        this.perPacketOverheadBytes = m.perPacketOverheadBytes();
        this.maxBacklogBytes = m.maxBacklogBytes();
        this.bestEffortRateBytesPerSec = m.bestEffortRateBytesPerSec();
        this.bestEffortBurstBytes = m.bestEffortBurstBytes();
        this.analysisScope = sc.name();
        this.plannerGeneration = -1;
    }

    @Override
    public Guarantee admit(GuaranteeRequest request) throws AdmissionRejectedException {
        long start = System.nanoTime();
        try {
            Guarantee g = decideAndCommit(request);
            admitted.increment();
            post(new GuaranteeEvent(GuaranteeEvent.Type.GUARANTEE_ADMITTED, g));
            return g;
        } catch (AdmissionRejectedException e) {
            (e.reason() == NO_CAPACITY ? noCapacity : badRequests).increment();
            throw e;
        } finally {
            maxDecisionMicros.accumulateAndGet((System.nanoTime() - start) / 1000, Math::max);
        }
    }

    private synchronized Guarantee decideAndCommit(GuaranteeRequest request) throws AdmissionRejectedException {
        RoutingPlan plan = routeService.plan().orElseThrow(
                () -> new AdmissionRejectedException(NOT_ROUTED, "shadow routes are not in force"));
        FabricGraph graph = plan.graph();
        MacAddress src;
        MacAddress dst;
        Optional<FlowKey> flow = request.flow();
        if (flow.isPresent()) {
            src = graph.hostByIp(flow.get().src()).map(FabricHost::mac).orElseThrow(
                    () -> new AdmissionRejectedException(BAD_REQUEST, "unknown host " + flow.get().src()));
            dst = graph.hostByIp(flow.get().dst()).map(FabricHost::mac).orElseThrow(
                    () -> new AdmissionRejectedException(BAD_REQUEST, "unknown host " + flow.get().dst()));
        } else {
            src = request.src().orElseThrow();
            dst = request.dst().orElseThrow();
            for (MacAddress m : List.of(src, dst)) {
                if (graph.host(m).isEmpty()) {
                    throw new AdmissionRejectedException(BAD_REQUEST, "unknown host " + m);
                }
            }
        }
        for (Guarantee g : guarantees.asJavaMap().values()) {
            if (g.request().flow().equals(flow) && g.src().equals(src) && g.dst().equals(dst)) {
                throw new AdmissionRejectedException(BAD_REQUEST, "already guaranteed as " + g.id());
            }
        }
        List<ShadowPath> paths = flow.isPresent() ? routeService.paths(src, dst)
                : routeService.chosenPath(src, dst).map(List::of).orElse(List.of());
        if (paths.isEmpty()) {
            throw new AdmissionRejectedException(BAD_REQUEST, "no shadow path from " + src + " to " + dst
                    + " (hosts on the same edge switch are not supported)");
        }
        List<GuaranteePath> candidates = new ArrayList<>();
        for (ShadowPath p : paths) {
            candidates.add(toGuaranteePath(graph, p));
        }
        if (request.maxPacketBytes() > mtuBytes) {
            throw new AdmissionRejectedException(BAD_REQUEST, "max packet " + request.maxPacketBytes()
                    + " B exceeds the MTU " + mtuBytes + " B");
        }
        FlowDemand demand = new FlowDemand(request.rateBytesPerSec(), request.burstBytes(),
                request.minPacketBytes(), request.maxPacketBytes(), request.deadlineNanos());
        for (int attempt = 0; attempt < COMMIT_ATTEMPTS; attempt++) {
            long gen = syncPlanner();
            long fixed = candidates.stream().mapToLong(planner::fixedLatencyNanos).min().orElseThrow();
            if (request.deadlineNanos() < fixed) {
                throw new AdmissionRejectedException(BAD_REQUEST, "deadline " + request.deadlineNanos()
                        + " ns is below the fixed latency " + fixed + " ns of the best path "
                        + "(switch latency and one MTU's transmission per hop)");
            }
            AdmissionVerdict v = planner.evaluate(demand, candidates);
            if (!v.admitted()) {
                throw new AdmissionRejectedException(NO_CAPACITY, v.reason().orElseThrow());
            }
            GuaranteePath chosen = v.path().orElseThrow();
            String id = "g" + ids.nextId();
            Guarantee g = new Guarantee(id, request, src, dst, chosen.index(), chosen.hops(), v.boundNanos(),
                    Guarantee.Policing.SENDER_SHAPED, null, System.currentTimeMillis());
            guarantees.put(id, g);
            if (!generation.compareAndSet(gen == 0 ? null : gen, gen + 1)) {
                // Another node admitted or removed meanwhile: decide again on its state.
                guarantees.remove(id);
                continue;
            }
            planner.admit(id, demand, chosen);
            plannerGeneration = gen + 1;
            ShadowPath path = paths.stream().filter(p -> p.index() == chosen.index()).findFirst().orElseThrow();
            try {
                flow.ifPresent(f -> routeService.placeFlow(f, src, dst, chosen.index()));
            } catch (IllegalArgumentException | IllegalStateException e) {
                withdraw(id);
                throw new AdmissionRejectedException(NOT_ROUTED, "pinning to path " + chosen.index()
                        + " failed: " + e.getMessage());
            }
            Guarantee policed = meters.police(g, path);
            if (!policed.equals(g)) {
                guarantees.put(id, policed);
            }
            log.info("Admitted {}", policed);
            return policed;
        }
        throw new AdmissionRejectedException(NO_CAPACITY, "concurrent admissions kept changing the state; retry");
    }

    private GuaranteePath toGuaranteePath(FabricGraph graph, ShadowPath p) throws AdmissionRejectedException {
        List<GuaranteeHop> hops = new ArrayList<>();
        for (PathHop h : p.hops()) {
            ConnectPoint cp = new ConnectPoint(h.device(), h.outPort());
            long cap = graph.portCapacityBps(cp).orElseThrow(
                    () -> new AdmissionRejectedException(NOT_ROUTED, "capacity of port " + cp + " unknown"));
            hops.add(GuaranteeHop.of(h.device(), h.outPort(), cap));
        }
        return new GuaranteePath(p.index(), hops);
    }

    /** Brings the planner to the stored state; returns the generation it reflects. */
    private long syncPlanner() {
        Long g = generation.get();
        long gen = g == null ? 0 : g;
        if (planner != null && gen == plannerGeneration) {
            return gen;
        }
        SwitchModel m = model;
        AdmissionPlanner p = new AdmissionPlanner(d -> m, scope, mtuBytes);
        List<Guarantee> all = guarantees();
        for (Guarantee x : all) {
            GuaranteeRequest r = x.request();
            p.admit(x.id(), new FlowDemand(r.rateBytesPerSec(), r.burstBytes(), r.minPacketBytes(),
                    r.maxPacketBytes(), r.deadlineNanos()), new GuaranteePath(x.pathIndex(), x.hops()));
        }
        planner = p;
        plannerGeneration = gen;
        return gen;
    }

    private void bumpGeneration() {
        while (true) {
            Long g = generation.get();
            if (generation.compareAndSet(g, g == null ? 1 : g + 1)) {
                return;
            }
        }
    }

    @Override
    public boolean remove(String id) {
        Guarantee g = withdraw(id);
        if (g == null) {
            return false;
        }
        post(new GuaranteeEvent(GuaranteeEvent.Type.GUARANTEE_REMOVED, g));
        log.info("Removed {}", g);
        return true;
    }

    private synchronized Guarantee withdraw(String id) {
        Versioned<Guarantee> v = guarantees.remove(id);
        if (v == null) {
            return null;
        }
        Guarantee g = v.value();
        bumpGeneration();
        g.request().flow().ifPresent(routeService::removeFlow);
        routeService.paths(g.src(), g.dst()).stream().filter(p -> p.index() == g.pathIndex()).findFirst()
                .ifPresent(p -> meters.release(g, p));
        return g;
    }

    @Override
    public List<Guarantee> guarantees() {
        List<Guarantee> l = new ArrayList<>(guarantees.asJavaMap().values());
        l.sort(Comparator.comparingLong(Guarantee::admittedMillis).thenComparing(Guarantee::id));
        return l;
    }

    @Override
    public Optional<Guarantee> guarantee(String id) {
        return Optional.ofNullable(guarantees.asJavaMap().get(id));
    }

    @Override
    public synchronized Map<String, Long> currentBounds() {
        syncPlanner();
        return planner.bounds();
    }

    @Override
    public AdmissionCounters counters() {
        return new AdmissionCounters(admitted.sum(), badRequests.sum(), noCapacity.sum(), vetoes.sum(),
                maxDecisionMicros.get());
    }

    @Override
    public synchronized Optional<String> veto(FlowKey flow, MacAddress src, MacAddress dst, int fromIndex,
                                              int toIndex, double rateBytesPerSec) {
        Optional<String> why = vetoReason(flow, src, dst, fromIndex, toIndex, rateBytesPerSec);
        why.ifPresent(w -> vetoes.increment());
        return why;
    }

    private Optional<String> vetoReason(FlowKey flow, MacAddress src, MacAddress dst, int fromIndex, int toIndex,
                                        double rateBytesPerSec) {
        for (Guarantee g : guarantees.asJavaMap().values()) {
            if (g.request().flow().map(flow::equals).orElse(false)) {
                return Optional.of("flow " + flow + " has guarantee " + g.id());
            }
            if (g.request().flow().isEmpty() && g.src().equals(src) && g.dst().equals(dst)) {
                return Optional.of("host pair " + src + "->" + dst + " has guarantee " + g.id());
            }
        }
        if (guarantees.isEmpty()) {
            return Optional.empty();
        }
        List<ShadowPath> paths = routeService.paths(src, dst);
        Optional<ShadowPath> to = paths.stream().filter(p -> p.index() == toIndex).findFirst();
        if (to.isEmpty()) {
            return Optional.empty(); // TE will fail to place it anyway
        }
        Set<DeviceId> before = new HashSet<>();
        Set<ConnectPoint> portsBefore = new HashSet<>();
        paths.stream().filter(p -> p.index() == fromIndex).findFirst().ifPresent(p -> p.hops().forEach(h -> {
            before.add(h.device());
            portsBefore.add(new ConnectPoint(h.device(), h.outPort()));
        }));
        RoutingPlan plan = routeService.plan().orElse(null);
        if (plan == null) {
            return Optional.empty();
        }
        List<GuaranteeHop> added = new ArrayList<>();
        try {
            for (GuaranteeHop h : toGuaranteePath(plan.graph(), to.get()).hops()) {
                boolean fresh = scope.perSwitch() ? !before.contains(h.device())
                        : !portsBefore.contains(new ConnectPoint(h.device(), h.outPort()));
                if (fresh) {
                    added.add(h);
                }
            }
        } catch (AdmissionRejectedException e) {
            return Optional.of(e.getMessage());
        }
        syncPlanner();
        long rate = (long) Math.ceil(rateBytesPerSec);
        long burst = (long) Math.ceil(rateBytesPerSec * teMoveBurstMicros / 1e6) + mtuBytes;
        return planner.checkExtraTraffic(added, rate, burst)
                .map(r -> "moving " + flow + " to path " + toIndex + " would break a guarantee: " + r);
    }
}
