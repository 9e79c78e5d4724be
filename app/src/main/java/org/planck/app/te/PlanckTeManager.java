package org.planck.app.te;

import org.onlab.util.Tools;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.cluster.ClusterService;
import org.onosproject.cluster.LeadershipService;
import org.onosproject.cluster.NodeId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.device.DeviceService;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.planck.api.FlowKey;
import org.planck.api.ShadowRouteEvent;
import org.planck.api.ShadowRouteListener;
import org.planck.api.ShadowRouteService;
import org.planck.api.config.PlanckConfigEvent;
import org.planck.api.config.PlanckConfigListener;
import org.planck.api.config.PlanckConfigService;
import org.planck.api.config.PlanckSettings;
import org.planck.api.te.MoveGuard;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteRejectedException;
import org.planck.api.te.RerouteService;
import org.planck.api.te.TeMode;
import org.planck.api.te.TeService;
import org.planck.api.telemetry.FlowStateService;
import org.planck.api.telemetry.PlanckCongestionEvent;
import org.planck.api.telemetry.PlanckCongestionListener;
import org.planck.api.telemetry.PlanckMetricsService;
import org.planck.api.telemetry.PortLoad;
import org.planck.api.telemetry.PortLoadService;
import org.planck.app.te.algo.TeLoop;
import org.planck.app.telemetry.PortStatsPoller;
import org.slf4j.Logger;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.onlab.util.Tools.groupedThreads;
import static org.planck.app.te.OsgiPropertyConstants.LOAD_SYNC_MS;
import static org.planck.app.te.OsgiPropertyConstants.LOAD_SYNC_MS_DEFAULT;
import static org.planck.app.te.OsgiPropertyConstants.POLL_PERIOD_MS;
import static org.planck.app.te.OsgiPropertyConstants.POLL_PERIOD_MS_DEFAULT;
import static org.planck.app.te.OsgiPropertyConstants.TE_MODE;
import static org.planck.app.te.OsgiPropertyConstants.TE_MODE_DEFAULT;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * Planck's traffic-engineering loop in ONOS. In PLANCK mode it acts on congestion events
 * (collector notices and the telemetry load view) and, at every load sync, on ports its own
 * path-based load view puts over the threshold; in POLL mode on port delta statistics read every
 * N ms; in STATIC mode it does nothing and flows follow their hash default. {@code teEnabled=false}
 * in the network config forces STATIC.
 *
 * <p>Every node keeps the load view and congestion marks; only the leader of the TE topic moves
 * flows, so a cluster never moves a flow twice for one event. Moves are per-flow placements
 * (one ingress-edge rule each) shared cluster-wide by {@link ShadowRouteService}.</p>
 */
@Component(immediate = true, service = TeService.class,
        property = {
                TE_MODE + "=" + TE_MODE_DEFAULT,
                POLL_PERIOD_MS + ":Integer=" + POLL_PERIOD_MS_DEFAULT,
                LOAD_SYNC_MS + ":Integer=" + LOAD_SYNC_MS_DEFAULT,
        })
public class PlanckTeManager implements TeService {

    /** Leadership topic: its leader is the node that moves flows. */
    public static final String LEADERSHIP_TOPIC = "org.planck.te";

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ShadowRouteService routeService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowStateService flowStateService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PortLoadService portLoadService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected RerouteService rerouteService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PlanckMetricsService metricsService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PlanckConfigService configService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected LeadershipService leadershipService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ClusterService clusterService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ComponentConfigService cfgService;

    /** Admission control, when running: asked before every move so no guarantee breaks. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    protected volatile MoveGuard moveGuard;

    /**
     * Traffic-engineering mode asked for (by this property, REST or CLI): STATIC (hash placement
     * only), POLL (port counters) or PLANCK (telemetry); STATIC in force while netcfg teEnabled=false.
     */
    private volatile TeMode teMode = TeMode.valueOf(TE_MODE_DEFAULT);
    /** Network config allows TE. */
    private volatile boolean teEnabled = PlanckSettings.DEFAULT_TE_ENABLED;
    /** Mode in force. */
    private volatile TeMode mode = TeMode.STATIC;
    /** Poll mode: period of reading port delta statistics, ms. */
    private int pollPeriodMs = POLL_PERIOD_MS_DEFAULT;

    /** Period of re-reading all live flows into the TE load view, ms. */
    private int loadSyncMs = LOAD_SYNC_MS_DEFAULT;

    // Serialises the load view, decisions and mode changes.
    private final Object lock = new Object();
    private TeLoop loop;
    private PortStatsPoller poller;
    private ScheduledExecutorService scheduler;
    private ScheduledFuture<?> syncTask;

    private final PlanckCongestionListener congestionListener = this::onCongestion;
    private final PlanckConfigListener configListener = new InternalConfigListener();
    private final ShadowRouteListener routeListener = new InternalRouteListener();

    @Activate
    protected void activate(ComponentContext context) {
        cfgService.registerProperties(getClass());
        loop = new TeLoop(routeService, flowStateService, rerouteService, metricsService::recordDecisionLatencyMicros);
        loop.setMoveGuard((flow, src, dst, from, to, rate) -> {
            MoveGuard g = moveGuard;
            return g == null ? Optional.empty() : g.veto(flow, src, dst, from, to, rate);
        });
        leadershipService.runForLeadership(LEADERSHIP_TOPIC);
        scheduler = Executors.newSingleThreadScheduledExecutor(groupedThreads("planck/te", "loop", log));
        readProperties(context == null ? null : context.getProperties());
        applySettings();
        portLoadService.addListener(congestionListener);
        configService.addListener(configListener);
        routeService.addListener(routeListener);
        log.info("Started in {} mode", mode);
    }

    @Modified
    protected void modified(ComponentContext context) {
        readProperties(context == null ? null : context.getProperties());
    }

    @Deactivate
    protected void deactivate() {
        routeService.removeListener(routeListener);
        configService.removeListener(configListener);
        portLoadService.removeListener(congestionListener);
        synchronized (lock) {
            stopPolling();
            if (syncTask != null) {
                syncTask.cancel(false);
            }
        }
        scheduler.shutdownNow();
        leadershipService.withdraw(LEADERSHIP_TOPIC);
        cfgService.unregisterProperties(getClass(), false);
        log.info("Stopped");
    }

    private void readProperties(Dictionary<?, ?> properties) {
        Dictionary<?, ?> props = properties == null ? new Hashtable<>() : properties;
        String m = props == null ? null : Tools.get(props, TE_MODE);
        int poll = positiveProperty(props, POLL_PERIOD_MS, pollPeriodMs);
        int sync = positiveProperty(props, LOAD_SYNC_MS, loadSyncMs);
        synchronized (lock) {
            if (m != null) {
                TeMode parsed = TeMode.parse(m).orElse(null);
                if (parsed == null) {
                    log.warn("Ignoring {}={}: not one of STATIC, POLL, PLANCK", TE_MODE, m);
                } else {
                    teMode = parsed;
                }
            }
            boolean pollChanged = poll != pollPeriodMs;
            pollPeriodMs = poll;
            if (syncTask == null || sync != loadSyncMs) {
                loadSyncMs = sync;
                if (syncTask != null) {
                    syncTask.cancel(false);
                }
                syncTask = scheduler.scheduleWithFixedDelay(this::syncSafely, loadSyncMs, loadSyncMs,
                        TimeUnit.MILLISECONDS);
            }
            if (pollChanged) {
                stopPolling();
            }
            applyMode();
        }
    }

    private int positiveProperty(Dictionary<?, ?> props, String name, int current) {
        int v = Tools.getIntegerProperty(props, name, current);
        if (v > 0) {
            return v;
        }
        log.warn("Ignoring {}={}: must be a positive integer", name, v);
        return current;
    }

    /** Takes threshold, hysteresis, damping, elephant threshold and teEnabled from the network config. */
    private void applySettings() {
        PlanckSettings s = configService.settings().orElse(null);
        double thresholdPct = s == null ? PlanckSettings.DEFAULT_CONGESTION_THRESHOLD_PCT : s.congestionThresholdPct();
        double hysteresisPct = s == null ? PlanckSettings.DEFAULT_HYSTERESIS_PCT : s.hysteresisPct();
        long dampingMs = s == null ? PlanckSettings.DEFAULT_REROUTE_DAMPING_MS : s.rerouteDampingMs();
        double elephantPct = s == null ? PlanckSettings.DEFAULT_ELEPHANT_THRESHOLD_PCT : s.elephantThresholdPct();
        synchronized (lock) {
            teEnabled = s == null ? PlanckSettings.DEFAULT_TE_ENABLED : s.teEnabled();
            // A threshold above 100% of capacity can never be met by moving flows: TE aims for 100%.
            loop.configure(Math.min(1.0, thresholdPct / 100.0), dampingMs, elephantPct / 100.0);
            // With INT as the only congestion signal, the mirror-based view chooses moves but triggers none.
            loop.setLoadViewTriggers(s == null || s.congestionSignal().usesMirrors());
            applyMode();
        }
        try {
            portLoadService.setCongestionThreshold(thresholdPct, hysteresisPct);
        } catch (IllegalArgumentException e) {
            log.warn("Load-view threshold not changed: {}", e.getMessage());
        }
    }

    // Caller holds lock.
    private void applyMode() {
        TeMode next = teEnabled ? teMode : TeMode.STATIC;
        TeMode previous = mode;
        if (next == previous && (next != TeMode.POLL || poller != null)) {
            return;
        }
        mode = next;
        loop.setMode(next);
        if (next != TeMode.POLL) {
            stopPolling();
            loop.clearMeasured();
        } else if (poller == null) {
            poller = new PortStatsPoller(deviceService, pollPeriodMs, this::onPortStats);
            poller.start(scheduler);
        }
        if (next == TeMode.STATIC && previous != TeMode.STATIC && isLeader()) {
            int removed = loop.clearPlacements();
            log.info("Static mode: {} per-flow placements removed, flows follow their hash default", removed);
        }
        if (next != previous) {
            log.info("Traffic engineering mode {} -> {}", previous, next);
        }
    }

    private void stopPolling() {
        if (poller != null) {
            poller.stop();
            poller = null;
        }
    }

    private boolean isLeader() {
        NodeId leader = leadershipService.getLeader(LEADERSHIP_TOPIC);
        return leader != null && Objects.equals(leader, clusterService.getLocalNode().id());
    }

    // ---- triggers ----

    private void onCongestion(PlanckCongestionEvent event) {
        ConnectPoint port = event.subject();
        synchronized (lock) {
            boolean congested = event.type() != PlanckCongestionEvent.Type.CLEARED;
            double u = event.utilization();
            OptionalDouble reported = u > 0 ? OptionalDouble.of(u) : OptionalDouble.empty();
            loop.onNotice(port, congested, reported, isLeader(), event.receivedNanos());
        }
    }

    private void onPortStats(Map<ConnectPoint, PortLoad> loads) {
        long received = System.nanoTime();
        synchronized (lock) {
            actOnPortStats(loads, received);
        }
    }

    // Caller holds lock.
    private void actOnPortStats(Map<ConnectPoint, PortLoad> loads, long receivedNanos) {
        loop.onPortLoads(loads, isLeader(), receivedNanos);
    }

    /**
     * Poll mode: reads port delta statistics once and acts on them now (the poller does this every
     * {@code pollPeriodMs}).
     *
     * @return ports read
     */
    public int pollNow() {
        long received = System.nanoTime();
        Map<ConnectPoint, PortLoad> loads = new PortStatsPoller(deviceService, pollPeriodMs, l -> { })
                .pollOnce();
        synchronized (lock) {
            actOnPortStats(loads, received);
        }
        return loads.size();
    }

    private void syncSafely() {
        try {
            syncNow();
        } catch (RuntimeException e) {
            log.warn("TE load sync failed", e);
        }
    }

    /**
     * Re-reads all live flows into the load view; in PLANCK mode, the leader then relieves every
     * port that is congested or over threshold in that view (flows whose damping expired may move
     * now). Runs every {@code loadSyncMs}.
     *
     * @return flows tracked
     */
    public int syncNow() {
        long received = System.nanoTime();
        synchronized (lock) {
            int n = loop.sync();
            if (isLeader()) {
                loop.relieveOverloaded(portLoadService.congestedPorts(), received);
            }
            return n;
        }
    }

    // ---- TeService ----

    @Override
    public TeMode requestedMode() {
        return teMode;
    }

    @Override
    public TeMode mode() {
        return mode;
    }

    @Override
    public boolean teEnabled() {
        return teEnabled;
    }

    @Override
    public void setMode(TeMode newMode) {
        checkNotNull(newMode, "mode");
        synchronized (lock) {
            teMode = newMode;
            applyMode();
        }
        // Component configuration is cluster-wide: every node follows.
        cfgService.setProperty(getClass().getName(), TE_MODE, newMode.name());
    }

    @Override
    public Reroute reroute(FlowKey flow, int pathIndex) throws RerouteRejectedException {
        long received = System.nanoTime();
        synchronized (lock) {
            return loop.reroute(flow, pathIndex, received);
        }
    }

    private class InternalConfigListener implements PlanckConfigListener {
        @Override
        public void event(PlanckConfigEvent event) {
            applySettings();
        }
    }

    private class InternalRouteListener implements ShadowRouteListener {
        @Override
        public void event(ShadowRouteEvent event) {
            // New plan: rebuild the load view off the event thread.
            scheduler.execute(PlanckTeManager.this::syncSafely);
        }
    }

    /**
     * Flows the load view tracks (for tests and diagnostics).
     *
     * @return count
     */
    public int trackedFlows() {
        synchronized (lock) {
            return loop.trackedFlows();
        }
    }

    /**
     * The path index a flow is on in the load view.
     *
     * @param flow the flow
     * @return index, or -1 if not tracked
     */
    public int pathIndex(FlowKey flow) {
        synchronized (lock) {
            return loop.pathIndex(flow).orElse(-1);
        }
    }
}
