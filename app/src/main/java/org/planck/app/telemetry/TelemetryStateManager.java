package org.planck.app.telemetry;

import com.google.common.collect.ImmutableList;
import org.onlab.util.KryoNamespace;
import org.onlab.util.Tools;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.event.AbstractListenerManager;
import org.onosproject.event.EventDeliveryService;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Port;
import org.onosproject.net.device.DeviceService;
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
import org.osgi.service.component.annotations.ReferencePolicy;
import org.planck.api.FlowKey;
import org.planck.api.config.CongestionSignal;
import org.planck.api.config.PlanckSettings;
import org.planck.api.inband.IntCongestionSink;
import org.planck.api.inband.IntSignalSink;
import org.planck.api.inband.PintEventSink;
import org.planck.api.telemetry.CongestionSource;
import org.planck.api.telemetry.CongestionState;
import org.planck.api.telemetry.FlowRateEvent;
import org.planck.api.telemetry.FlowRecord;
import org.planck.api.telemetry.FlowStateService;
import org.planck.api.telemetry.IngestCounters;
import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.IntPortSignal;
import org.planck.api.telemetry.MalformedBatchException;
import org.planck.api.telemetry.PlanckCongestionEvent;
import org.planck.api.telemetry.PlanckCongestionListener;
import org.planck.api.telemetry.PortCongestionNotice;
import org.planck.api.telemetry.PortLoad;
import org.planck.api.telemetry.PortLoadService;
import org.planck.api.telemetry.RateEstimator;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.api.telemetry.TelemetryBatchCodec;
import org.planck.api.telemetry.TelemetryEvent;
import org.planck.api.telemetry.TelemetryIngestService;
import org.planck.app.telemetry.algo.BatchSequenceWindow;
import org.planck.app.telemetry.algo.CollectorCongestion;
import org.planck.app.telemetry.algo.FlowAtSwitch;
import org.planck.app.telemetry.algo.PortCongestionTracker;
import org.planck.app.telemetry.algo.PortLoadLedger;
import org.slf4j.Logger;

import java.io.InputStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import static org.onlab.util.Tools.groupedThreads;
import static org.planck.app.telemetry.OsgiPropertyConstants.FLOW_IDLE_TIMEOUT_MS;
import static org.planck.app.telemetry.OsgiPropertyConstants.FLOW_IDLE_TIMEOUT_MS_DEFAULT;
import static org.planck.app.telemetry.OsgiPropertyConstants.MAX_FLOW_RECORDS;
import static org.planck.app.telemetry.OsgiPropertyConstants.MAX_FLOW_RECORDS_DEFAULT;
import static org.planck.app.telemetry.OsgiPropertyConstants.SWEEP_INTERVAL_MS;
import static org.planck.app.telemetry.OsgiPropertyConstants.SWEEP_INTERVAL_MS_DEFAULT;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * Ingests collector telemetry into cluster-wide flow state, keeps per-port load and congestion
 * state, expires idle flows, and posts {@link PlanckCongestionEvent}s.
 * <p>
 * Flow records (one per flow and switch) and standing collector congestion notices live in
 * EventuallyConsistentMaps; per-port load and congestion are derived on every node from its
 * replica, so each node's listeners see the same transitions.
 * <p>
 * INT_PORT signals (telemetry-events-v2) of known ports go to the INT port state
 * ({@link IntSignalSink}, the inband component); its queue congestion marks come back through
 * {@link IntCongestionSink} and count in a port's congestion state as the network config's
 * congestion signal says. PINT events (telemetry-events-v3) go to path conformance
 * ({@link PintEventSink}); without it they are counted as unhandled.
 */
@Component(immediate = true,
        service = {TelemetryIngestService.class, FlowStateService.class, PortLoadService.class,
                IntCongestionSink.class},
        property = {
                FLOW_IDLE_TIMEOUT_MS + ":Integer=" + FLOW_IDLE_TIMEOUT_MS_DEFAULT,
                SWEEP_INTERVAL_MS + ":Integer=" + SWEEP_INTERVAL_MS_DEFAULT,
                MAX_FLOW_RECORDS + ":Integer=" + MAX_FLOW_RECORDS_DEFAULT,
        })
public class TelemetryStateManager
        extends AbstractListenerManager<PlanckCongestionEvent, PlanckCongestionListener>
        implements TelemetryIngestService, FlowStateService, PortLoadService, IntCongestionSink {

    /** Serializer of the replicated telemetry state. */
    public static final KryoNamespace SERIALIZER = KryoNamespace.newBuilder()
            .register(KryoNamespaces.API)
            .nextId(KryoNamespaces.BEGIN_USER_CUSTOM_ID)
            .register(FlowKey.class, FlowAtSwitch.class, FlowRecord.class, RateEstimator.class,
                    PortCongestionNotice.class, CongestionState.class, CollectorCongestion.class)
            .build("PlanckTelemetry");

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ComponentConfigService cfgService;

    /** The INT port state, when running: receives the INT_PORT signals of ingested batches. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    protected volatile IntSignalSink intSignalSink;

    /** PINT path conformance, when running: receives the PINT events of ingested batches. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    protected volatile PintEventSink pintEventSink;

    /** Controller clock for record ages and expiry; tests substitute a manual clock. */
    protected Clock clock = Clock.systemUTC();

    /** Flow records not updated for this many milliseconds expire. */
    private int flowIdleTimeoutMs = FLOW_IDLE_TIMEOUT_MS_DEFAULT;

    /** Period of the idle-flow sweep, milliseconds. */
    private int sweepIntervalMs = SWEEP_INTERVAL_MS_DEFAULT;

    /** Most flow records kept; reports of further new flows are dropped and counted. */
    private int maxFlowRecords = MAX_FLOW_RECORDS_DEFAULT;

    private final TelemetryBatchCodec codec = new TelemetryBatchCodec();
    private final PortLoadLedger ledger = new PortLoadLedger();
    // Until the network config is applied (by PlanckTeManager), its defaults hold.
    private final PortCongestionTracker tracker = new PortCongestionTracker(
            PlanckSettings.DEFAULT_CONGESTION_THRESHOLD_PCT, PlanckSettings.DEFAULT_HYSTERESIS_PCT);
    // One writer at a time keeps the maps, the ledger and the tracker mutually consistent.
    private final Object stateLock = new Object();
    private final Map<String, BatchSequenceWindow> sequences = new ConcurrentHashMap<>();
    // True while this node writes its own maps under stateLock: the maps may call their listeners
    // synchronously for local writes, which are already applied here and must not be applied twice.
    private boolean writingLocally;

    private EventuallyConsistentMap<FlowAtSwitch, FlowRecord> flows;
    private EventuallyConsistentMap<ConnectPoint, CollectorCongestion> notices;
    private final EventuallyConsistentMapListener<FlowAtSwitch, FlowRecord> flowReplicaListener =
            this::onFlowReplicaEvent;
    private final EventuallyConsistentMapListener<ConnectPoint, CollectorCongestion> noticeReplicaListener =
            this::onNoticeReplicaEvent;

    private ScheduledExecutorService sweeper;
    private ScheduledFuture<?> sweepTask;

    private final LongAdder batches = new LongAdder();
    private final LongAdder rejectedBatches = new LongAdder();
    private final LongAdder flowRateEvents = new LongAdder();
    private final LongAdder congestionNotices = new LongAdder();
    private final LongAdder unknownDevice = new LongAdder();
    private final LongAdder unknownPort = new LongAdder();
    private final LongAdder staleEvents = new LongAdder();
    private final LongAdder lostBatches = new LongAdder();
    private final LongAdder expiredFlows = new LongAdder();
    private final LongAdder droppedFlowEvents = new LongAdder();
    private final LongAdder pintApplied = new LongAdder();
    private final LongAdder pintUnhandled = new LongAdder();

    /**
     * Wires and activates a manager outside OSGi, as the lab and benchmarks run it, with the
     * default configuration.
     *
     * @param storage  source of the replicated maps
     * @param devices  known devices and ports
     * @param events   delivery of congestion events
     * @param clock    controller clock
     * @return the active manager; {@link #deactivateStandalone()} stops it
     */
    public static TelemetryStateManager standalone(StorageService storage, DeviceService devices,
                                                   EventDeliveryService events, Clock clock) {
        return standalone(storage, devices, events, clock, null);
    }

    /**
     * Wires and activates a manager outside OSGi with the given configuration properties
     * (names in {@link OsgiPropertyConstants}; absent ones keep their defaults).
     *
     * @param storage source of the replicated maps
     * @param devices known devices and ports
     * @param events  delivery of congestion events
     * @param clock   controller clock
     * @param config  property name to value, or null
     * @return the active manager; {@link #deactivateStandalone()} stops it
     */
    public static TelemetryStateManager standalone(StorageService storage, DeviceService devices,
                                                   EventDeliveryService events, Clock clock,
                                                   Dictionary<String, ?> config) {
        TelemetryStateManager m = new TelemetryStateManager();
        m.storageService = storage;
        m.deviceService = devices;
        m.eventDispatcher = events;
        m.clock = clock;
        m.activate(null);
        if (config != null) {
            m.readConfig(config);
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
        flows = storageService.<FlowAtSwitch, FlowRecord>eventuallyConsistentMapBuilder()
                .withName("planck-flow-records")
                .withSerializer(KryoNamespace.newBuilder().register(SERIALIZER))
                .withTimestampProvider((k, v) -> new WallClockTimestamp())
                .build();
        notices = storageService.<ConnectPoint, CollectorCongestion>eventuallyConsistentMapBuilder()
                .withName("planck-collector-congestion")
                .withSerializer(KryoNamespace.newBuilder().register(SERIALIZER))
                .withTimestampProvider((k, v) -> new WallClockTimestamp())
                .build();
        synchronized (stateLock) {
            // Adopt whatever the cluster already holds.
            Set<ConnectPoint> touched = new HashSet<>();
            flows.entrySet().forEach(e -> ledger.place(e.getKey(), e.getValue().port(),
                    e.getValue().actionableBitsPerSec(), touched));
            notices.keySet().forEach(cp -> tracker.onCollector(cp, true, CongestionSource.COLLECTOR, 0));
        }
        flows.addListener(flowReplicaListener);
        notices.addListener(noticeReplicaListener);
        eventDispatcher.addSink(PlanckCongestionEvent.class, listenerRegistry);
        sweeper = Executors.newSingleThreadScheduledExecutor(groupedThreads("planck/telemetry", "sweeper", log));
        readConfig(context);
        log.info("Started");
    }

    @Modified
    protected void modified(ComponentContext context) {
        readConfig(context);
    }

    @Deactivate
    protected void deactivate() {
        if (cfgService != null) {
            cfgService.unregisterProperties(getClass(), false);
        }
        eventDispatcher.removeSink(PlanckCongestionEvent.class);
        sweeper.shutdownNow();
        flows.removeListener(flowReplicaListener);
        notices.removeListener(noticeReplicaListener);
        flows.destroy();
        notices.destroy();
        log.info("Stopped");
    }

    private void readConfig(ComponentContext context) {
        readConfig(context == null ? null : context.getProperties());
    }

    private void readConfig(Dictionary<?, ?> properties) {
        Dictionary<?, ?> props = properties == null ? new Hashtable<>() : properties;
        // The congestion threshold is not here: the network config owns it (PlanckTeManager sets it).
        int idle = Tools.getIntegerProperty(props, FLOW_IDLE_TIMEOUT_MS, flowIdleTimeoutMs);
        int sweep = Tools.getIntegerProperty(props, SWEEP_INTERVAL_MS, sweepIntervalMs);
        int maxFlows = Tools.getIntegerProperty(props, MAX_FLOW_RECORDS, maxFlowRecords);
        if (maxFlows > 0) {
            maxFlowRecords = maxFlows;
        } else {
            log.warn("Ignoring {}={}: must be > 0", MAX_FLOW_RECORDS, maxFlows);
        }
        if (idle > 0) {
            flowIdleTimeoutMs = idle;
        } else {
            log.warn("Ignoring {}={}: must be > 0", FLOW_IDLE_TIMEOUT_MS, idle);
        }
        if (sweep > 0) {
            sweepIntervalMs = sweep;
        } else {
            log.warn("Ignoring {}={}: must be > 0", SWEEP_INTERVAL_MS, sweep);
        }
        if (sweepTask != null) {
            sweepTask.cancel(false);
        }
        sweepTask = sweeper.scheduleAtFixedRate(this::sweepSafely, sweepIntervalMs, sweepIntervalMs,
                TimeUnit.MILLISECONDS);
        log.info("Flow idle timeout {} ms, sweep every {} ms, congestion at {}% (clear below {}%)",
                flowIdleTimeoutMs, sweepIntervalMs, tracker.thresholdPercent(),
                tracker.thresholdPercent() - tracker.hysteresisPercent());
    }

    /**
     * Idle timeout of flow records.
     *
     * @return milliseconds
     */
    public int flowIdleTimeoutMs() {
        return flowIdleTimeoutMs;
    }

    /**
     * Hands the PINT events of ingested batches to a sink when running outside OSGi (tests,
     * benchmarks); OSGi binds it as a dynamic reference.
     *
     * @param sink path conformance, or null to stop handing events over
     */
    public void setPintEventSink(PintEventSink sink) {
        this.pintEventSink = sink;
    }

    // ---- ingestion ----

    @Override
    public IngestResult ingest(InputStream json) throws MalformedBatchException {
        TelemetryBatch batch;
        try {
            batch = codec.decode(json);
        } catch (MalformedBatchException e) {
            rejectedBatches.increment();
            throw e;
        }
        return ingest(batch);
    }

    @Override
    public IngestResult ingest(TelemetryBatch batch) {
        long receivedNanos = System.nanoTime();
        BatchTally tally = new BatchTally();
        List<PlanckCongestionEvent> out = new ArrayList<>();
        List<IntPortSignal> intSignals = new ArrayList<>();
        synchronized (stateLock) {
            writingLocally = true;
            try {
                apply(batch, receivedNanos, tally, out);
            } finally {
                writingLocally = false;
            }
            for (IntPortSignal s : batch.intSignals()) {
                if (known(s.port(), tally)) {
                    intSignals.add(s);
                }
            }
        }
        batches.increment();
        flowRateEvents.add(tally.flowsApplied);
        congestionNotices.add(tally.noticesApplied);
        unknownDevice.add(tally.noDevice);
        unknownPort.add(tally.noPort);
        staleEvents.add(tally.stale);
        droppedFlowEvents.add(tally.dropped);
        out.forEach(this::post);
        IntSignalSink sink = intSignalSink;
        if (sink != null && !intSignals.isEmpty()) {
            // Outside stateLock: the sink calls back into setIntQueueCongested.
            sink.accept(batch.collector(), intSignals, receivedNanos);
        }
        PintEventSink pint = pintEventSink;
        int pintEvents = batch.pintPaths().size() + batch.pintLatencies().size();
        if (pintEvents > 0) {
            if (pint != null) {
                // PINT events name flows and paths, not ports: the conformance view judges the path.
                pint.accept(batch.collector(), batch.pintPaths(), batch.pintLatencies());
                pintApplied.add(pintEvents);
                tally.accepted += pintEvents;
            } else {
                pintUnhandled.add(pintEvents);
            }
        }
        return new IngestResult(tally.accepted, tally.noDevice, tally.noPort);
    }

    private static final class BatchTally {
        int accepted;
        int noDevice;
        int noPort;
        int flowsApplied;
        int noticesApplied;
        int stale;
        int dropped;
    }

    // Caller holds stateLock.
    private void apply(TelemetryBatch batch, long receivedNanos, BatchTally tally, List<PlanckCongestionEvent> out) {
        long now = clock.millis();
        trackSequence(batch);
        Set<ConnectPoint> touched = new HashSet<>();
        for (TelemetryEvent e : batch.events()) {
            ConnectPoint cp = e.port();
            if (!known(cp, tally)) {
                continue;
            }
            if (e instanceof FlowRateEvent) {
                FlowRateEvent f = (FlowRateEvent) e;
                FlowAtSwitch key = new FlowAtSwitch(f.flow(), cp.deviceId());
                FlowRecord old = flows.get(key);
                if (old == null && ledger.size() >= maxFlowRecords) {
                    // Bounded table: a new flow beyond the limit is dropped and counted, never queued.
                    tally.dropped++;
                    continue;
                }
                if (old != null && old.lastSampleUs() > f.lastSampleUs()) {
                    // Reordered delivery: a newer estimate is already applied.
                    tally.stale++;
                    continue;
                }
                FlowRecord record = FlowRecord.of(f, batch.collector(), now);
                flows.put(key, record);
                ledger.place(key, cp, record.actionableBitsPerSec(), touched);
                tally.flowsApplied++;
            } else {
                PortCongestionNotice n = (PortCongestionNotice) e;
                boolean congested = n.state() == CongestionState.CONGESTED;
                if (congested) {
                    notices.put(cp, new CollectorCongestion(n, batch.collector(), now));
                } else {
                    notices.remove(cp);
                }
                tracker.onCollector(cp, congested, CongestionSource.COLLECTOR, n.utilization())
                        .ifPresent(t -> out.add(t.toEvent(receivedNanos)));
                tally.noticesApplied++;
            }
        }
        evaluateLoads(touched, receivedNanos, out);
    }

    /** Whether the device and port of an event exist; counts the event either way. */
    private boolean known(ConnectPoint cp, BatchTally tally) {
        if (deviceService.getDevice(cp.deviceId()) == null) {
            tally.noDevice++;
            return false;
        }
        if (deviceService.getPort(cp) == null) {
            tally.noPort++;
            return false;
        }
        tally.accepted++;
        return true;
    }

    private void trackSequence(TelemetryBatch batch) {
        // Under stateLock. Batches of one collector may arrive a little out of order (its
        // notices travel on a connection of their own): a number is lost once 64 later ones
        // have arrived without it.
        lostBatches.add(sequences.computeIfAbsent(batch.collector(), c -> new BatchSequenceWindow())
                                .accept(batch.seq()));
    }

    private void evaluateLoads(Collection<ConnectPoint> ports, long receivedNanos, List<PlanckCongestionEvent> out) {
        for (ConnectPoint cp : ports) {
            long capacity = capacityBps(cp);
            if (capacity <= 0) {
                continue;
            }
            double utilization = (double) ledger.load(cp) / capacity;
            tracker.onLoad(cp, utilization).ifPresent(t -> out.add(t.toEvent(receivedNanos)));
        }
    }

    private long capacityBps(ConnectPoint cp) {
        Port port = deviceService.getPort(cp);
        return port == null ? 0 : port.portSpeed() * 1_000_000L;
    }

    // ---- expiry ----

    private void sweepSafely() {
        try {
            expireIdle();
        } catch (RuntimeException e) {
            log.warn("Flow expiry sweep failed", e);
        }
    }

    /**
     * Removes flow records not updated within the idle timeout, drops collector congestion
     * notices standing on ports that no longer carry a live flow, and re-evaluates the load
     * view of every affected or congested port. Runs periodically; public for tests and the lab.
     *
     * @return number of flow records removed
     */
    public int expireIdle() {
        long receivedNanos = System.nanoTime();
        List<PlanckCongestionEvent> out = new ArrayList<>();
        int removed;
        synchronized (stateLock) {
            writingLocally = true;
            try {
                removed = expire(receivedNanos, out);
            } finally {
                writingLocally = false;
            }
        }
        expiredFlows.add(removed);
        out.forEach(this::post);
        return removed;
    }

    // Caller holds stateLock.
    private int expire(long receivedNanos, List<PlanckCongestionEvent> out) {
        long cutoff = clock.millis() - flowIdleTimeoutMs;
        List<FlowAtSwitch> idle = new ArrayList<>();
        for (Map.Entry<FlowAtSwitch, FlowRecord> e : flows.entrySet()) {
            if (e.getValue().updatedMillis() < cutoff) {
                idle.add(e.getKey());
            }
        }
        Set<ConnectPoint> touched = new HashSet<>();
        for (FlowAtSwitch key : idle) {
            flows.remove(key);
            ledger.remove(key, touched);
        }
        List<ConnectPoint> staleNotices = new ArrayList<>();
        for (Map.Entry<ConnectPoint, CollectorCongestion> e : notices.entrySet()) {
            if (e.getValue().appliedMillis() < cutoff && ledger.flowCount(e.getKey()) == 0) {
                staleNotices.add(e.getKey());
            }
        }
        for (ConnectPoint cp : staleNotices) {
            notices.remove(cp);
            tracker.onCollector(cp, false, CongestionSource.EXPIRY, 0)
                    .ifPresent(t -> out.add(t.toEvent(receivedNanos)));
        }
        touched.addAll(tracker.congestedPorts());
        evaluateLoads(touched, receivedNanos, out);
        return idle.size();
    }

    // ---- replication from other nodes ----

    // Replication events may arrive late or reordered, so both listeners re-read the map's current
    // value for the key instead of trusting the event: applying the current value is idempotent.
    private void onFlowReplicaEvent(EventuallyConsistentMapEvent<FlowAtSwitch, FlowRecord> event) {
        synchronized (stateLock) {
            if (writingLocally) {
                return;
            }
            Set<ConnectPoint> touched = new HashSet<>();
            FlowRecord current = flows.get(event.key());
            if (current != null) {
                ledger.place(event.key(), current.port(), current.actionableBitsPerSec(), touched);
            } else {
                ledger.remove(event.key(), touched);
            }
            // The load view of replicated updates is evaluated by the periodic sweep.
        }
    }

    private void onNoticeReplicaEvent(EventuallyConsistentMapEvent<ConnectPoint, CollectorCongestion> event) {
        Optional<PortCongestionTracker.Transition> t;
        synchronized (stateLock) {
            if (writingLocally) {
                return;
            }
            CollectorCongestion current = notices.get(event.key());
            t = tracker.onCollector(event.key(), current != null, CongestionSource.COLLECTOR,
                    current != null ? current.notice().utilization() : 0);
        }
        t.ifPresent(tr -> post(tr.toEvent(System.nanoTime())));
    }

    // ---- queries ----

    @Override
    public Collection<FlowRecord> flows() {
        synchronized (stateLock) {
            return ImmutableList.copyOf(flows.values());
        }
    }

    @Override
    public Collection<FlowRecord> flows(FlowKey flow) {
        List<FlowRecord> result = new ArrayList<>();
        synchronized (stateLock) {
            for (FlowAtSwitch key : ledger.sitesOf(flow)) {
                FlowRecord r = flows.get(key);
                if (r != null) {
                    result.add(r);
                }
            }
        }
        return result;
    }

    @Override
    public Collection<FlowRecord> flowsOn(ConnectPoint port) {
        List<FlowRecord> result = new ArrayList<>();
        synchronized (stateLock) {
            for (FlowAtSwitch key : ledger.flowsOn(port)) {
                FlowRecord r = flows.get(key);
                if (r != null) {
                    result.add(r);
                }
            }
        }
        return result;
    }

    @Override
    public int flowRecordCount() {
        synchronized (stateLock) {
            return flows.size();
        }
    }

    @Override
    public PortLoad load(ConnectPoint port) {
        return new PortLoad(port, ledger.load(port), capacityBps(port), ledger.flowCount(port),
                tracker.isCongested(port));
    }

    @Override
    public Collection<PortLoad> loads() {
        Set<ConnectPoint> ports = new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
        ports.addAll(ledger.ports());
        ports.addAll(tracker.congestedPorts());
        List<PortLoad> result = new ArrayList<>(ports.size());
        for (ConnectPoint cp : ports) {
            result.add(load(cp));
        }
        return result;
    }

    @Override
    public Set<ConnectPoint> congestedPorts() {
        return tracker.congestedPorts();
    }

    @Override
    public void setCongestionThreshold(double thresholdPercent, double hysteresisPercent) {
        tracker.setThreshold(thresholdPercent, hysteresisPercent);
    }

    @Override
    public void setIntQueueCongested(ConnectPoint port, boolean congested, long receivedNanos) {
        tracker.onIntQueue(port, congested).ifPresent(t -> post(t.toEvent(receivedNanos)));
    }

    @Override
    public void setCongestionSignal(CongestionSignal signal) {
        long now = System.nanoTime();
        List<PortCongestionTracker.Transition> changed;
        synchronized (stateLock) {
            changed = tracker.setSignal(signal);
        }
        if (!changed.isEmpty()) {
            log.info("Congestion signal {}: {} ports changed state", signal.configName(), changed.size());
        }
        changed.forEach(t -> post(t.toEvent(now)));
    }

    /**
     * Which telemetry declares ports congested.
     *
     * @return the congestion signal in force
     */
    public CongestionSignal congestionSignal() {
        return tracker.signal();
    }

    @Override
    public IngestCounters counters() {
        return new IngestCounters(batches.sum(), rejectedBatches.sum(), flowRateEvents.sum(),
                congestionNotices.sum(), unknownDevice.sum(), unknownPort.sum(), staleEvents.sum(),
                lostBatches.sum(), expiredFlows.sum(), droppedFlowEvents.sum(), pintApplied.sum(),
                pintUnhandled.sum());
    }
}
