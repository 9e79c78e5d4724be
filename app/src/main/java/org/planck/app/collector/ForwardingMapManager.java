package org.planck.app.collector;

import com.google.common.collect.ImmutableMap;
import org.onlab.packet.MacAddress;
import org.onosproject.cluster.ClusterService;
import org.onosproject.cluster.LeadershipEvent;
import org.onosproject.cluster.LeadershipEventListener;
import org.onosproject.cluster.LeadershipService;
import org.onosproject.cluster.NodeId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
import org.onosproject.store.service.AtomicCounter;
import org.onosproject.store.service.StorageService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.planck.api.CollectorForwardingMap;
import org.planck.api.CollectorPushStatus;
import org.planck.api.ForwardingMapService;
import org.planck.api.PortCapacity;
import org.planck.api.ShadowRouteEvent;
import org.planck.api.ShadowRouteListener;
import org.planck.api.ShadowRouteService;
import org.planck.api.SwitchForwarding;
import org.planck.api.config.CollectorConfig;
import org.planck.api.config.PlanckConfigEvent;
import org.planck.api.config.PlanckConfigListener;
import org.planck.api.config.PlanckConfigService;
import org.planck.api.config.PlanckSettings;
import org.planck.api.config.ServedSwitch;
import org.slf4j.Logger;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.onlab.util.Tools.groupedThreads;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * Keeps each collector's forwarding map current and pushes it (and the collector config)
 * to the collector's control endpoint whenever it changes. Every node computes the maps so
 * each can serve them over REST; only the leader of {@value #PUSH_TOPIC} pushes.
 */
@Component(immediate = true, service = ForwardingMapService.class)
public class ForwardingMapManager implements ForwardingMapService {

    /** Leadership topic electing the node that pushes to collectors. */
    static final String PUSH_TOPIC = "planck-collector-push";
    /** Port speeds are reported in Mbps. */
    private static final long BPS_PER_MBPS = 1_000_000L;

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PlanckConfigService configService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ShadowRouteService shadowRouteService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected LeadershipService leadershipService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ClusterService clusterService;

    private final PlanckConfigListener configListener = new InternalConfigListener();
    private final ShadowRouteListener routeListener = new InternalRouteListener();
    private final DeviceListener deviceListener = new InternalDeviceListener();
    private final LeadershipEventListener leadershipListener = new InternalLeadershipListener();

    private final Map<String, CollectorForwardingMap> maps = new ConcurrentHashMap<>();
    private AtomicCounter generations;
    private CollectorPusher pusher;
    private ScheduledExecutorService pushScheduler;
    private PlanckSettings pushedSettings;
    /** Serialises map rebuilds; tests replace it with a direct executor. */
    ExecutorService executor;
    /** Push timing; tests shorten it. */
    Duration requestTimeout = Duration.ofSeconds(2);
    int maxAttempts = 5;
    long initialBackoffMs = 200;
    long maxBackoffMs = 5_000;

    @Activate
    protected void activate() {
        generations = storageService.atomicCounterBuilder().withName("planck-forwarding-generation")
                .build().asAtomicCounter();
        // A generation must exceed anything a collector saw before, even across a full
        // cluster restart that loses the counter: start from the wall clock in ms.
        generations.compareAndSet(0, System.currentTimeMillis());
        pushScheduler = Executors.newSingleThreadScheduledExecutor(groupedThreads("planck/collector", "push", log));
        HttpClient client = HttpClient.newBuilder().connectTimeout(requestTimeout)
                .executor(pushScheduler).build();
        pusher = new CollectorPusher(client, pushScheduler, requestTimeout, maxAttempts, initialBackoffMs,
                maxBackoffMs);
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(groupedThreads("planck/collector", "maps", log));
        }
        leadershipService.addListener(leadershipListener);
        leadershipService.runForLeadership(PUSH_TOPIC);
        configService.addListener(configListener);
        shadowRouteService.addListener(routeListener);
        deviceService.addListener(deviceListener);
        executor.execute(this::rebuild);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        deviceService.removeListener(deviceListener);
        shadowRouteService.removeListener(routeListener);
        configService.removeListener(configListener);
        leadershipService.removeListener(leadershipListener);
        leadershipService.withdraw(PUSH_TOPIC);
        executor.shutdownNow();
        pushScheduler.shutdownNow();
        maps.clear();
        log.info("Stopped");
    }

    @Override
    public Optional<CollectorForwardingMap> forwardingMap(String collectorId) {
        return Optional.ofNullable(maps.get(collectorId));
    }

    @Override
    public Optional<CollectorPushStatus> pushStatus(String collectorId) {
        if (!maps.containsKey(collectorId)) {
            return Optional.empty();
        }
        return Optional.of(pusher.status(collectorId).orElse(
                new CollectorPushStatus(collectorId, -1, -1, 0, 0, 0, 0, 0, "")));
    }

    private boolean isPusher() {
        NodeId leader = leadershipService.getLeader(PUSH_TOPIC);
        return leader != null && leader.equals(clusterService.getLocalNode().id());
    }

    /** Recomputes every collector's map, pushing those that changed (and config if it changed). */
    private synchronized void rebuild() {
        try {
            PlanckSettings settings = configService.settings().orElse(null);
            List<CollectorConfig> collectors = settings == null ? List.of() : settings.collectors();
            Map<String, CollectorConfig> byId = new HashMap<>();
            collectors.forEach(c -> byId.put(c.id(), c));
            for (String gone : new ArrayList<>(maps.keySet())) {
                if (!byId.containsKey(gone)) {
                    maps.remove(gone);
                    pusher.forget(gone);
                }
            }
            boolean pushing = isPusher();
            boolean configChanged = !Objects.equals(settings, pushedSettings);
            for (CollectorConfig c : collectors) {
                List<SwitchForwarding> switches = new ArrayList<>();
                for (ServedSwitch sw : c.switches()) {
                    switches.add(switchForwarding(sw));
                }
                CollectorForwardingMap candidate = new CollectorForwardingMap(c.id(), 0, switches);
                CollectorForwardingMap old = maps.get(c.id());
                boolean mapChanged = old == null || !old.sameContent(candidate);
                CollectorForwardingMap current = mapChanged ? candidate.withGeneration(generations.incrementAndGet()) : old;
                maps.put(c.id(), current);
                if (pushing && configChanged) {
                    pusher.pushConfig(c, settings);
                }
                if (pushing && (mapChanged || configChanged)) {
                    pusher.pushMap(c, current);
                }
            }
            if (pushing) {
                pushedSettings = settings;
            }
        } catch (RuntimeException e) {
            log.warn("Forwarding map rebuild failed", e);
        }
    }

    private synchronized void pushAll() {
        pushedSettings = null;
        rebuild();
    }

    private SwitchForwarding switchForwarding(ServedSwitch sw) {
        DeviceId d = sw.deviceId();
        List<PortCapacity> ports = new ArrayList<>();
        if (deviceService.getDevice(d) != null) {
            for (Port p : deviceService.getPorts(d)) {
                PortNumber n = p.number();
                if (!n.isLogical() && !n.equals(sw.mirrorPort())) {
                    ports.add(new PortCapacity(n, Math.max(0, p.portSpeed()) * BPS_PER_MBPS));
                }
            }
        }
        Map<MacAddress, PortNumber> entries = shadowRouteService.egressEntries(d);
        return new SwitchForwarding(d, sw.rspanVlan(), sw.mirrorPort(), ports,
                entries == null ? ImmutableMap.of() : entries);
    }

    private class InternalConfigListener implements PlanckConfigListener {
        @Override
        public void event(PlanckConfigEvent event) {
            executor.execute(ForwardingMapManager.this::rebuild);
        }
    }

    private class InternalRouteListener implements ShadowRouteListener {
        @Override
        public void event(ShadowRouteEvent event) {
            executor.execute(ForwardingMapManager.this::rebuild);
        }
    }

    private class InternalDeviceListener implements DeviceListener {
        @Override
        public boolean isRelevant(DeviceEvent event) {
            switch (event.type()) {
                case PORT_ADDED:
                case PORT_REMOVED:
                case PORT_UPDATED:
                case DEVICE_ADDED:
                case DEVICE_REMOVED:
                    return configService.settings()
                            .map(s -> s.servedSwitch(event.subject().id()).isPresent()).orElse(false);
                default:
                    return false;
            }
        }

        @Override
        public void event(DeviceEvent event) {
            executor.execute(ForwardingMapManager.this::rebuild);
        }
    }

    private class InternalLeadershipListener implements LeadershipEventListener {
        @Override
        public boolean isRelevant(LeadershipEvent event) {
            return PUSH_TOPIC.equals(event.subject().topic());
        }

        @Override
        public void event(LeadershipEvent event) {
            // A new pusher does not know what its predecessor delivered: push everything.
            executor.execute(ForwardingMapManager.this::pushAll);
        }
    }
}
