package org.planck.app.inband;

import com.google.common.collect.ImmutableList;
import org.onlab.util.KryoNamespace;
import org.onlab.util.Tools;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.net.ConnectPoint;
import org.onosproject.store.serializers.KryoNamespaces;
import org.onosproject.store.service.EventuallyConsistentMap;
import org.onosproject.store.service.EventuallyConsistentMapEvent;
import org.onosproject.store.service.EventuallyConsistentMapListener;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.WallClockTimestamp;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.planck.api.config.CongestionSignal;
import org.planck.api.config.PlanckConfigEvent;
import org.planck.api.config.PlanckConfigListener;
import org.planck.api.config.PlanckConfigService;
import org.planck.api.config.PlanckSettings;
import org.planck.api.inband.IntCongestionSink;
import org.planck.api.inband.IntCounters;
import org.planck.api.inband.IntPortService;
import org.planck.api.inband.IntPortState;
import org.planck.api.inband.IntSignalSink;
import org.planck.api.telemetry.IntPortSignal;
import org.planck.app.inband.algo.IntPortRules;
import org.slf4j.Logger;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import static org.onlab.util.Tools.groupedThreads;
import static org.planck.app.inband.OsgiPropertyConstants.INT_IDLE_TIMEOUT_MS;
import static org.planck.app.inband.OsgiPropertyConstants.INT_IDLE_TIMEOUT_MS_DEFAULT;
import static org.planck.app.inband.OsgiPropertyConstants.INT_SWEEP_INTERVAL_MS;
import static org.planck.app.inband.OsgiPropertyConstants.INT_SWEEP_INTERVAL_MS_DEFAULT;
import static org.planck.app.inband.OsgiPropertyConstants.MAX_INT_PORTS;
import static org.planck.app.inband.OsgiPropertyConstants.MAX_INT_PORTS_DEFAULT;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * Keeps the INT state of every switch egress port (latest queue occupancies, hop latency,
 * egress utilisation) from collectors' INT_PORT signals, in a cluster-wide map, and hands each
 * port's queue congestion mark to the congestion state TE acts on. Also hands the network
 * config's congestion signal (mirrors, INT or both) and queue thresholds to where they apply.
 * The table is bounded ({@code maxIntPorts}) and idle ports expire ({@code intIdleTimeoutMs}),
 * lifting their marks.
 */
@Component(immediate = true, service = {IntPortService.class, IntSignalSink.class},
        property = {
                INT_IDLE_TIMEOUT_MS + ":Integer=" + INT_IDLE_TIMEOUT_MS_DEFAULT,
                INT_SWEEP_INTERVAL_MS + ":Integer=" + INT_SWEEP_INTERVAL_MS_DEFAULT,
                MAX_INT_PORTS + ":Integer=" + MAX_INT_PORTS_DEFAULT,
        })
public class IntPortStateManager implements IntPortService, IntSignalSink {

    /** Serializer of the replicated INT port state. */
    public static final KryoNamespace SERIALIZER = KryoNamespace.newBuilder()
            .register(KryoNamespaces.API)
            .nextId(KryoNamespaces.BEGIN_USER_CUSTOM_ID)
            .register(IntPortState.class, IntPortSignal.Cause.class)
            .build("PlanckInband");

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected IntCongestionSink congestionSink;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PlanckConfigService configService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ComponentConfigService cfgService;

    /** Controller clock of updates and expiry; tests substitute a manual clock. */
    protected Clock clock = Clock.systemUTC();

    /** A port's INT state not updated for this many milliseconds expires. */
    private int intIdleTimeoutMs = INT_IDLE_TIMEOUT_MS_DEFAULT;

    /** Period of the idle-port sweep, milliseconds. */
    private int intSweepIntervalMs = INT_SWEEP_INTERVAL_MS_DEFAULT;

    /** Most ports with INT state; signals of further new ports are dropped and counted. */
    private int maxIntPorts = MAX_INT_PORTS_DEFAULT;

    private final IntPortRules rules = new IntPortRules();
    // One writer at a time keeps each port's read-modify-write whole.
    private final Object lock = new Object();
    // True while this node writes its own map under lock: local writes may call the listener
    // synchronously, and their marks are handed over by the writer.
    private boolean writingLocally;
    private EventuallyConsistentMap<ConnectPoint, IntPortState> states;
    private final EventuallyConsistentMapListener<ConnectPoint, IntPortState> replicaListener = this::onReplicaEvent;
    private final PlanckConfigListener configListener = e -> {
        if (e.type() == PlanckConfigEvent.Type.CONFIG_UPDATED || e.type() == PlanckConfigEvent.Type.CONFIG_REMOVED) {
            applySettings();
        }
    };

    private ScheduledExecutorService sweeper;
    private ScheduledFuture<?> sweepTask;

    private final LongAdder applied = new LongAdder();
    private final LongAdder stale = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder expired = new LongAdder();
    private final LongAdder marked = new LongAdder();
    private final LongAdder cleared = new LongAdder();

    /**
     * Wires and activates a manager outside OSGi (tests, lab), sweeping only when asked.
     *
     * @param storage source of the replicated map
     * @param sink    where queue congestion marks go
     * @param config  the Planck configuration
     * @param clock   controller clock
     * @param props   property name to value (names in {@link OsgiPropertyConstants}), or null
     * @return the active manager; {@link #deactivateStandalone()} stops it
     */
    public static IntPortStateManager standalone(StorageService storage, IntCongestionSink sink,
                                                 PlanckConfigService config, Clock clock,
                                                 Dictionary<String, ?> props) {
        IntPortStateManager m = new IntPortStateManager();
        m.storageService = storage;
        m.congestionSink = sink;
        m.configService = config;
        m.clock = clock;
        m.activate(null);
        if (props != null) {
            m.readConfig(props);
        }
        return m;
    }

    /**
     * Stops a manager made by {@link #standalone}.
     */
    public void deactivateStandalone() {
        deactivate();
    }

    @Activate
    protected void activate(ComponentContext context) {
        if (cfgService != null) { // absent outside ONOS
            cfgService.registerProperties(getClass());
        }
        states = storageService.<ConnectPoint, IntPortState>eventuallyConsistentMapBuilder()
                .withName("planck-int-ports")
                .withSerializer(KryoNamespace.newBuilder().register(SERIALIZER))
                .withTimestampProvider((k, v) -> new WallClockTimestamp())
                .build();
        states.addListener(replicaListener);
        sweeper = Executors.newSingleThreadScheduledExecutor(groupedThreads("planck/inband", "sweeper", log));
        readConfig(context == null ? null : context.getProperties());
        configService.addListener(configListener);
        applySettings();
        // Adopt the marks the cluster already holds.
        for (IntPortState s : states.values()) {
            if (s.queueCongested()) {
                congestionSink.setIntQueueCongested(s.port(), true, System.nanoTime());
            }
        }
        log.info("Started");
    }

    @Modified
    protected void modified(ComponentContext context) {
        readConfig(context == null ? null : context.getProperties());
    }

    @Deactivate
    protected void deactivate() {
        if (cfgService != null) {
            cfgService.unregisterProperties(getClass(), false);
        }
        configService.removeListener(configListener);
        sweeper.shutdownNow();
        states.removeListener(replicaListener);
        // This node's marks go with its state.
        for (IntPortState s : states.values()) {
            if (s.queueCongested()) {
                congestionSink.setIntQueueCongested(s.port(), false, System.nanoTime());
            }
        }
        states.destroy();
        log.info("Stopped");
    }

    private void readConfig(Dictionary<?, ?> properties) {
        Dictionary<?, ?> props = properties == null ? new Hashtable<>() : properties;
        intIdleTimeoutMs = positive(props, INT_IDLE_TIMEOUT_MS, intIdleTimeoutMs);
        intSweepIntervalMs = positive(props, INT_SWEEP_INTERVAL_MS, intSweepIntervalMs);
        maxIntPorts = positive(props, MAX_INT_PORTS, maxIntPorts);
        if (sweepTask != null) {
            sweepTask.cancel(false);
        }
        sweepTask = sweeper.scheduleAtFixedRate(this::sweepSafely, intSweepIntervalMs, intSweepIntervalMs,
                TimeUnit.MILLISECONDS);
        log.info("INT port state: idle timeout {} ms, sweep every {} ms, at most {} ports", intIdleTimeoutMs,
                intSweepIntervalMs, maxIntPorts);
    }

    private int positive(Dictionary<?, ?> props, String name, int current) {
        int v = Tools.getIntegerProperty(props, name, current);
        if (v > 0) {
            return v;
        }
        log.warn("Ignoring {}={}: must be > 0", name, v);
        return current;
    }

    /** Takes the congestion signal and queue thresholds from the network config. */
    private void applySettings() {
        PlanckSettings s = configService.settings().orElse(null);
        CongestionSignal signal = s == null ? PlanckSettings.DEFAULT_CONGESTION_SIGNAL : s.congestionSignal();
        long threshold = s == null ? PlanckSettings.DEFAULT_INT_QUEUE_THRESHOLD : s.intQueueThreshold();
        long hysteresis = s == null ? PlanckSettings.DEFAULT_INT_QUEUE_THRESHOLD / 5 : s.intQueueHysteresis();
        Map<ConnectPoint, Boolean> changed = new LinkedHashMap<>();
        synchronized (lock) {
            if (rules.threshold() != threshold || rules.hysteresis() != hysteresis) {
                rules.configure(threshold, hysteresis);
                writingLocally = true;
                try {
                    for (IntPortState old : states.values()) {
                        IntPortState judged = rules.judge(old);
                        if (judged != old) {
                            states.put(judged.port(), judged);
                            changed.put(judged.port(), judged.queueCongested());
                        }
                    }
                } finally {
                    writingLocally = false;
                }
            }
        }
        handOver(changed, System.nanoTime());
        congestionSink.setCongestionSignal(signal);
    }

    // ---- signals ----

    @Override
    public void accept(String collector, List<IntPortSignal> signals, long receivedNanos) {
        Map<ConnectPoint, Boolean> changed = new LinkedHashMap<>();
        synchronized (lock) {
            // Each touched port's mark before the batch: the batch hands over net changes only.
            Map<ConnectPoint, Boolean> before = new LinkedHashMap<>();
            Map<ConnectPoint, Boolean> after = new LinkedHashMap<>();
            writingLocally = true;
            try {
                long now = clock.millis();
                for (IntPortSignal s : signals) {
                    IntPortState old = states.get(s.port());
                    if (old == null && states.size() >= maxIntPorts) {
                        dropped.increment();
                        continue;
                    }
                    IntPortState current = old == null ? IntPortState.empty(s.port()) : old;
                    Optional<IntPortState> next = rules.apply(current, s, collector, now);
                    if (next.isEmpty()) {
                        stale.increment();
                        continue;
                    }
                    states.put(s.port(), next.get());
                    applied.increment();
                    before.putIfAbsent(s.port(), current.queueCongested());
                    after.put(s.port(), next.get().queueCongested());
                }
            } finally {
                writingLocally = false;
            }
            after.forEach((port, mark) -> {
                if (!mark.equals(before.get(port))) {
                    changed.put(port, mark);
                }
            });
        }
        handOver(changed, receivedNanos);
    }

    private void handOver(Map<ConnectPoint, Boolean> marks, long receivedNanos) {
        marks.forEach((port, congested) -> {
            (congested ? marked : cleared).increment();
            congestionSink.setIntQueueCongested(port, congested, receivedNanos);
        });
    }

    // Replication events may arrive late or reordered: apply the map's current value, idempotently.
    private void onReplicaEvent(EventuallyConsistentMapEvent<ConnectPoint, IntPortState> event) {
        boolean congested;
        synchronized (lock) {
            if (writingLocally) {
                return;
            }
            IntPortState current = states.get(event.key());
            congested = current != null && current.queueCongested();
        }
        congestionSink.setIntQueueCongested(event.key(), congested, System.nanoTime());
    }

    // ---- expiry ----

    private void sweepSafely() {
        try {
            expireIdle();
        } catch (RuntimeException e) {
            log.warn("INT port expiry sweep failed", e);
        }
    }

    /**
     * Removes port states not updated within the idle timeout, lifting their congestion marks.
     * Runs periodically; public for tests and the lab.
     *
     * @return port states removed
     */
    public int expireIdle() {
        Map<ConnectPoint, Boolean> lifted = new LinkedHashMap<>();
        int removed = 0;
        synchronized (lock) {
            long cutoff = clock.millis() - intIdleTimeoutMs;
            List<IntPortState> idle = new ArrayList<>();
            for (IntPortState s : states.values()) {
                if (s.updatedMillis() < cutoff) {
                    idle.add(s);
                }
            }
            writingLocally = true;
            try {
                for (IntPortState s : idle) {
                    states.remove(s.port());
                    removed++;
                    if (s.queueCongested()) {
                        lifted.put(s.port(), false);
                    }
                }
            } finally {
                writingLocally = false;
            }
        }
        expired.add(removed);
        handOver(lifted, System.nanoTime());
        return removed;
    }

    // ---- queries ----

    @Override
    public Collection<IntPortState> ports() {
        synchronized (lock) {
            return ImmutableList.copyOf(states.values());
        }
    }

    @Override
    public Optional<IntPortState> port(ConnectPoint port) {
        synchronized (lock) {
            return Optional.ofNullable(states.get(port));
        }
    }

    @Override
    public IntCounters counters() {
        return new IntCounters(applied.sum(), stale.sum(), dropped.sum(), expired.sum(), marked.sum(),
                cleared.sum());
    }
}
