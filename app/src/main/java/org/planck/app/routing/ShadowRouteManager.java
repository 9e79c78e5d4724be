package org.planck.app.routing;

import org.onlab.packet.MacAddress;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.event.AbstractListenerManager;
import org.onosproject.mastership.MastershipEvent;
import org.onosproject.mastership.MastershipListener;
import org.onosproject.mastership.MastershipService;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.host.HostEvent;
import org.onosproject.net.host.HostListener;
import org.onosproject.net.host.HostService;
import org.onosproject.net.link.LinkEvent;
import org.onosproject.net.link.LinkListener;
import org.onosproject.net.link.LinkService;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.MapEvent;
import org.onosproject.store.service.MapEventListener;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.planck.api.FlowKey;
import org.planck.api.MirrorEvent;
import org.planck.api.MirrorListener;
import org.planck.api.MirrorService;
import org.planck.api.MirrorSession;
import org.planck.api.ShadowRouteEvent;
import org.planck.api.ShadowRouteListener;
import org.planck.api.ShadowRouteService;
import org.planck.api.config.PlanckConfigEvent;
import org.planck.api.config.PlanckConfigListener;
import org.planck.api.config.PlanckConfigService;
import org.planck.api.config.PlanckSettings;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.ForwardingMap;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.RoutingUpdate;
import org.planck.api.fabric.RuleKind;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowTree;
import org.planck.app.PlanckApp;
import org.planck.app.routing.algo.ShadowRoutePlanner;
import org.planck.app.store.DistributedShadowMacAllocator;
import org.planck.app.store.PlanckSerializers;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.onlab.util.Tools.groupedThreads;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * Programs shadow-MAC routes. It translates ONOS's topology into the routing model, plans
 * (re-plans incrementally after link, device and host changes, so only affected trees move
 * and host-pair defaults leave dead trees), allocates shadow MACs cluster-wide, and installs
 * the plan's rules as flow rules on the switches this node is master of. Every member
 * computes the same plan; each programs only its own switches. Rules are reconciled against
 * the flow rule store, which makes mastership changes and reconnects safe.
 */
@Component(immediate = true, service = ShadowRouteService.class)
public class ShadowRouteManager extends AbstractListenerManager<ShadowRouteEvent, ShadowRouteListener>
        implements ShadowRouteService {

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PlanckConfigService configService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected LinkService linkService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected HostService hostService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowRuleService flowRuleService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected MastershipService mastershipService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected MirrorService mirrorService;

    private final PlanckConfigListener configListener = new InternalConfigListener();
    private final DeviceListener deviceListener = new InternalDeviceListener();
    private final LinkListener linkListener = new InternalLinkListener();
    private final HostListener hostListener = new InternalHostListener();
    private final MastershipListener mastershipListener = new InternalMastershipListener();
    private final MirrorListener mirrorListener = new InternalMirrorListener();
    private final MapEventListener<FlowKey, FlowPlacement> placementListener = new InternalPlacementListener();
    private final AtomicBoolean recomputeQueued = new AtomicBoolean();

    private ApplicationId appId;
    private DistributedShadowMacAllocator allocator;
    /** Per-flow placements (TE moves), shared by the cluster; each is realised by one ingress rule. */
    private ConsistentMap<FlowKey, FlowPlacement> placements;
    private FabricTopology topology;
    private ShadowRoutePlanner planner;
    private volatile RoutingPlan plan;
    private volatile ForwardingMap egress;
    /** Serialises planning and programming; tests replace it with a direct executor. */
    ExecutorService executor;

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(PlanckApp.APP_NAME);
        allocator = DistributedShadowMacAllocator.create(storageService);
        placements = storageService.<FlowKey, FlowPlacement>consistentMapBuilder()
                .withName("planck-flow-placements").withSerializer(PlanckSerializers.SERIALIZER).build();
        placements.addListener(placementListener);
        topology = new FabricTopology(deviceService, linkService, hostService);
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(groupedThreads("planck/shadow", "routes", log));
        }
        eventDispatcher.addSink(ShadowRouteEvent.class, listenerRegistry);
        configService.addListener(configListener);
        deviceService.addListener(deviceListener);
        linkService.addListener(linkListener);
        hostService.addListener(hostListener);
        mastershipService.addListener(mastershipListener);
        mirrorService.addListener(mirrorListener);
        executor.execute(this::recompute);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        mirrorService.removeListener(mirrorListener);
        mastershipService.removeListener(mastershipListener);
        hostService.removeListener(hostListener);
        linkService.removeListener(linkListener);
        deviceService.removeListener(deviceListener);
        configService.removeListener(configListener);
        placements.removeListener(placementListener);
        executor.shutdown();
        awaitIdle();
        flowRuleService.removeFlowRulesById(appId);
        plan = null;
        egress = null;
        eventDispatcher.removeSink(ShadowRouteEvent.class);
        log.info("Stopped");
    }

    @Override
    public Optional<RoutingPlan> plan() {
        return Optional.ofNullable(plan);
    }

    @Override
    public Optional<FabricHost> host(MacAddress mac) {
        RoutingPlan p = plan;
        return p == null ? Optional.empty() : p.graph().host(mac);
    }

    @Override
    public List<ShadowTree> trees(MacAddress destination) {
        RoutingPlan p = plan;
        return p == null ? List.of() : p.trees(destination);
    }

    @Override
    public List<ShadowPath> paths(MacAddress src, MacAddress dst) {
        RoutingPlan p = plan;
        if (p == null) {
            return List.of();
        }
        List<ShadowPath> paths = new ArrayList<>();
        for (ShadowTree t : p.trees(dst)) {
            p.path(src, dst, t.index()).filter(path -> path.hops().size() > 1).ifPresent(paths::add);
        }
        return paths;
    }

    @Override
    public Optional<ShadowPath> chosenPath(MacAddress src, MacAddress dst) {
        RoutingPlan p = plan;
        if (p == null) {
            return Optional.empty();
        }
        OptionalInt index = p.defaultPathIndex(src, dst);
        return index.isPresent() ? p.path(src, dst, index.getAsInt()) : Optional.empty();
    }

    @Override
    public Map<MacAddress, PortNumber> egressEntries(DeviceId deviceId) {
        ForwardingMap e = egress;
        return e == null ? Map.of() : e.entries(deviceId);
    }

    @Override
    public Collection<FlowRule> plannedRules() {
        RoutingPlan p = plan;
        if (p == null) {
            return List.of();
        }
        List<FlowRule> rules = new ArrayList<>(p.ruleCount());
        p.rulesByDevice().forEach((d, planned) -> rules.addAll(flowRules(d, planned)));
        placementRulesByDevice(p).forEach((d, planned) -> rules.addAll(flowRules(d, planned)));
        return rules;
    }

    @Override
    public void placeFlow(FlowKey flow, MacAddress src, MacAddress dst, int pathIndex) {
        RoutingPlan p = plan;
        if (p == null) {
            throw new IllegalStateException("Planck is not configured");
        }
        PlannedRule rule = p.flowRule(flow, src, dst, pathIndex); // validates hosts, edge and index
        placements.put(flow, FlowPlacement.of(src, dst, pathIndex, 0));
        // A TE move should reach the switch at once: the edge's master submits the one rule now
        // (same match as the old per-flow rule, so it replaces it); the placement listener's
        // reconcile of the edge then finds it in place.
        if (mastershipService.isLocalMaster(rule.device())) {
            flowRuleService.applyFlowRules(flowRules(rule.device(), List.of(rule)).get(0));
        }
    }

    @Override
    public boolean removeFlow(FlowKey flow) {
        return placements.remove(flow) != null;
    }

    @Override
    public Map<FlowKey, FlowPlacement> placements() {
        return Map.copyOf(placements.asJavaMap());
    }

    @Override
    public Optional<FlowPlacement> placement(FlowKey flow) {
        return Optional.ofNullable(Versioned.valueOrNull(placements.get(flow)));
    }

    /** The per-flow ingress rules of every placement that is valid on a plan, by switch. */
    private Map<DeviceId, List<PlannedRule>> placementRulesByDevice(RoutingPlan p) {
        Map<DeviceId, List<PlannedRule>> rules = new HashMap<>();
        for (Map.Entry<FlowKey, FlowPlacement> e : placements.asJavaMap().entrySet()) {
            FlowPlacement fp = e.getValue();
            try {
                PlannedRule r = p.flowRule(e.getKey(), fp.src(), fp.dst(), fp.pathIndex());
                rules.computeIfAbsent(r.device(), d -> new ArrayList<>()).add(r);
            } catch (IllegalArgumentException invalid) {
                // Left for recompute() to re-place; nothing to install meanwhile.
                continue;
            }
        }
        return rules;
    }

    /**
     * Moves placed flows whose path died or changed back to their host pair's default path,
     * and drops those whose hosts are gone or now share an edge switch.
     */
    private void replace(RoutingPlan next, Collection<FlowKey> flows) {
        for (FlowKey flow : flows) {
            FlowPlacement old = Versioned.valueOrNull(placements.get(flow));
            if (old == null) {
                continue;
            }
            OptionalInt def = next.defaultPathIndex(old.src(), old.dst());
            if (def.isPresent()) {
                placements.put(flow, old.withPathIndex(def.getAsInt()));
                log.info("Flow {} moved from path {} to default path {}", flow, old.pathIndex(), def.getAsInt());
            } else {
                placements.remove(flow);
                log.info("Flow {} dropped: no path from {} to {} any more", flow, old.src(), old.dst());
            }
        }
    }

    /** Flows whose placement is not valid on a plan (after a full re-plan). */
    private List<FlowKey> invalidPlacements(RoutingPlan p) {
        List<FlowKey> invalid = new ArrayList<>();
        for (Map.Entry<FlowKey, FlowPlacement> e : placements.asJavaMap().entrySet()) {
            FlowPlacement fp = e.getValue();
            try {
                p.flowRule(e.getKey(), fp.src(), fp.dst(), fp.pathIndex());
            } catch (IllegalArgumentException invalid1) {
                invalid.add(e.getKey());
            }
        }
        return invalid;
    }

    private List<FlowRule> flowRules(DeviceId d, List<PlannedRule> planned) {
        MirrorSession mirror = mirrorService.session(d).orElse(null);
        List<FlowRule> rules = new ArrayList<>(planned.size());
        for (PlannedRule r : planned) {
            rules.add(ShadowFlowRules.flowRule(r, appId, mirror));
        }
        return rules;
    }

    private void queueRecompute() {
        if (recomputeQueued.compareAndSet(false, true)) {
            executor.execute(() -> {
                recomputeQueued.set(false);
                recompute();
            });
        }
    }

    /** Brings the plan and the switches in line with the topology and the configuration. */
    private synchronized void recompute() {
        try {
            PlanckSettings settings = configService.settings().orElse(null);
            if (settings == null) {
                withdraw();
                return;
            }
            FabricGraph graph = topology.snapshot(settings);
            RoutingPlan previous = plan;
            Set<DeviceId> touched = new TreeSet<>(FabricGraph.DEVICE_ORDER);
            RoutingPlan next;
            if (previous == null || planner == null
                    || planner.pathsPerDestination() != settings.shadowPathsPerDestination()) {
                planner = new ShadowRoutePlanner(allocator, settings.shadowPathsPerDestination());
                next = planner.plan(graph);
                plan = next;
                replace(next, invalidPlacements(next));
                touched.addAll(next.rulesByDevice().keySet());
                if (previous != null) {
                    touched.addAll(previous.rulesByDevice().keySet());
                }
                log.info("Planned {} shadow trees, {} rules on {} switches", next.trees().size(),
                        next.ruleCount(), next.rulesByDevice().size());
            } else {
                if (graph.equals(previous.graph())) {
                    return;
                }
                RoutingUpdate update = planner.replan(previous, graph);
                next = update.plan();
                Map<FlowKey, FlowPlacement> placed = placements.asJavaMap();
                Set<FlowKey> moved = update.flowsToReplace(placed);
                for (FlowKey f : moved) {
                    // The old per-flow rule sits at the source's old edge switch.
                    previous.graph().host(placed.get(f).src()).ifPresent(h -> touched.add(h.edge()));
                }
                plan = next;
                replace(next, moved);
                update.rulesToAdd().forEach(r -> touched.add(r.device()));
                update.rulesToRemove().forEach(r -> touched.add(r.device()));
                log.info("Re-planned: {} paths changed ({} removed), {} rules added, {} removed",
                        update.changedPaths().size(), update.removedPaths().size(),
                        update.rulesToAdd().size(), update.rulesToRemove().size());
            }
            plan = next;
            egress = ForwardingMap.of(next);
            Map<DeviceId, List<PlannedRule>> perFlow = placementRulesByDevice(next);
            for (DeviceId d : touched) {
                program(d, perFlow);
            }
            post(new ShadowRouteEvent(ShadowRouteEvent.Type.ROUTES_UPDATED, touched));
        } catch (RuntimeException e) {
            log.warn("Shadow route computation failed; previous routes stay in force", e);
        }
    }

    private void withdraw() {
        RoutingPlan previous = plan;
        if (previous == null) {
            return;
        }
        plan = null;
        egress = null;
        planner = null;
        placements.clear();
        flowRuleService.removeFlowRulesById(appId);
        previous.graph().hosts().forEach(h -> allocator.release(h.mac()));
        log.info("Withdrew all shadow routes");
        post(new ShadowRouteEvent(ShadowRouteEvent.Type.ROUTES_REMOVED, previous.rulesByDevice().keySet()));
    }

    /** Makes the plan's rules on one switch exactly what the flow rule store holds for it. */
    private void program(DeviceId d, Map<DeviceId, List<PlannedRule>> perFlow) {
        if (!mastershipService.isLocalMaster(d)) {
            return;
        }
        RoutingPlan p = plan;
        Map<List<Object>, FlowRule> wanted = new HashMap<>();
        if (p != null) {
            List<PlannedRule> planned = new ArrayList<>(p.rulesAt(d));
            planned.addAll(perFlow.getOrDefault(d, List.of()));
            for (FlowRule r : flowRules(d, planned)) {
                wanted.put(matchKey(r), r);
            }
        }
        FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
        int adds = 0;
        int removes = 0;
        Set<List<Object>> present = new HashSet<>();
        for (FlowEntry e : flowRuleService.getFlowEntries(d)) {
            if (e.appId() != appId.id() || !isPlanckPriority(e.priority())) {
                continue; // not a rule of the plan or of a placement
            }
            List<Object> key = matchKey(e);
            FlowRule w = wanted.get(key);
            if (w != null && w.treatment().equals(e.treatment())) {
                present.add(key);
            } else if (w == null) {
                ops.remove(e);
                removes++;
            }
        }
        for (Map.Entry<List<Object>, FlowRule> w : wanted.entrySet()) {
            if (!present.contains(w.getKey())) {
                ops.add(w.getValue());
                adds++;
            }
        }
        if (adds + removes > 0) {
            flowRuleService.apply(ops.build());
            log.debug("{}: {} rules added or modified, {} removed", d, adds, removes);
        }
    }

    private static List<Object> matchKey(FlowRule r) {
        return Arrays.asList(r.selector(), r.priority(), r.tableId());
    }

    private static boolean isPlanckPriority(int priority) {
        for (RuleKind k : RuleKind.values()) {
            if (k.priority() == priority) {
                return true;
            }
        }
        return false;
    }

    /** Re-programs one switch with the plan in force (mirror mode or mastership changed). */
    private synchronized void reprogram(DeviceId d) {
        try {
            RoutingPlan p = plan;
            if (p != null) {
                program(d, placementRulesByDevice(p));
            }
        } catch (RuntimeException e) {
            log.warn("Programming {} failed", d, e);
        }
    }

    private class InternalConfigListener implements PlanckConfigListener {
        @Override
        public void event(PlanckConfigEvent event) {
            queueRecompute();
        }
    }

    private class InternalDeviceListener implements DeviceListener {
        @Override
        public boolean isRelevant(DeviceEvent event) {
            switch (event.type()) {
                case DEVICE_ADDED:
                case DEVICE_REMOVED:
                case DEVICE_AVAILABILITY_CHANGED:
                case PORT_ADDED:
                case PORT_REMOVED:
                    return true;
                default:
                    return false;
            }
        }

        @Override
        public void event(DeviceEvent event) {
            queueRecompute();
        }
    }

    private class InternalLinkListener implements LinkListener {
        @Override
        public void event(LinkEvent event) {
            queueRecompute();
        }
    }

    private class InternalHostListener implements HostListener {
        @Override
        public void event(HostEvent event) {
            queueRecompute();
        }
    }

    private class InternalMastershipListener implements MastershipListener {
        @Override
        public void event(MastershipEvent event) {
            if (event.type() == MastershipEvent.Type.MASTER_CHANGED) {
                DeviceId d = event.subject();
                executor.execute(() -> reprogram(d));
            }
        }
    }

    private class InternalPlacementListener implements MapEventListener<FlowKey, FlowPlacement> {
        @Override
        public void event(MapEvent<FlowKey, FlowPlacement> event) {
            Set<MacAddress> sources = new HashSet<>();
            if (event.newValue() != null) {
                sources.add(event.newValue().value().src());
            }
            if (event.oldValue() != null) {
                sources.add(event.oldValue().value().src());
            }
            for (MacAddress src : sources) {
                host(src).ifPresent(h -> executor.execute(() -> reprogram(h.edge())));
            }
        }
    }

    private class InternalMirrorListener implements MirrorListener {
        @Override
        public void event(MirrorEvent event) {
            DeviceId d = event.subject().deviceId();
            executor.execute(() -> reprogram(d));
        }
    }


    private void awaitIdle() {
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("Pending work did not finish within 5 s of deactivation");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
