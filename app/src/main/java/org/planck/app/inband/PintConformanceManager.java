package org.planck.app.inband;

import org.onlab.util.Tools;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.event.AbstractListenerManager;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.planck.api.FlowKey;
import org.planck.api.ShadowRouteService;
import org.planck.api.inband.ConformanceStatus;
import org.planck.api.inband.FlowConformance;
import org.planck.api.inband.PathConformanceEvent;
import org.planck.api.inband.PathConformanceListener;
import org.planck.api.inband.PathConformanceService;
import org.planck.api.inband.PintCounters;
import org.planck.api.inband.PintEventSink;
import org.planck.api.te.PlanckRerouteListener;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteService;
import org.planck.api.telemetry.PintHopLatency;
import org.planck.api.telemetry.PintPathEvent;
import org.planck.app.inband.algo.PathConformance;
import org.planck.app.inband.algo.PlannedPaths;
import org.slf4j.Logger;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import static org.onlab.util.Tools.groupedThreads;
import static org.planck.app.inband.OsgiPropertyConstants.MAX_PINT_FLOWS;
import static org.planck.app.inband.OsgiPropertyConstants.MAX_PINT_FLOWS_DEFAULT;
import static org.planck.app.inband.OsgiPropertyConstants.PINT_CONFIRM_TIMEOUT_MS;
import static org.planck.app.inband.OsgiPropertyConstants.PINT_CONFIRM_TIMEOUT_MS_DEFAULT;
import static org.planck.app.inband.OsgiPropertyConstants.PINT_IDLE_TIMEOUT_MS;
import static org.planck.app.inband.OsgiPropertyConstants.PINT_IDLE_TIMEOUT_MS_DEFAULT;
import static org.planck.app.inband.OsgiPropertyConstants.PINT_SWEEP_INTERVAL_MS;
import static org.planck.app.inband.OsgiPropertyConstants.PINT_SWEEP_INTERVAL_MS_DEFAULT;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * Path conformance from PINT (telemetry-events-v3): takes collectors' PINT_PATH and
 * PINT_HOP_LATENCY events from telemetry ingestion, the moves the reroute service reports, and
 * judges each flow's traced path against the path shadow routing puts it on
 * ({@link PathConformance}). Posts {@link PathConformanceEvent}s (a flow turned non-conforming,
 * a move was confirmed) and logs non-conforming flows.
 * <p>
 * The state is this node's: PINT events reach the node their collector posts to, and the
 * conformance view is that node's (a path is re-sent by the collector only when it changes,
 * so replicating it would not make another node's view more complete than the collector's
 * choice of node). Bounded ({@code maxPintFlows}), idle flows expire ({@code pintIdleTimeoutMs}).
 */
@Component(immediate = true, service = {PathConformanceService.class, PintEventSink.class},
        property = {
                MAX_PINT_FLOWS + ":Integer=" + MAX_PINT_FLOWS_DEFAULT,
                PINT_IDLE_TIMEOUT_MS + ":Integer=" + PINT_IDLE_TIMEOUT_MS_DEFAULT,
                PINT_CONFIRM_TIMEOUT_MS + ":Integer=" + PINT_CONFIRM_TIMEOUT_MS_DEFAULT,
                PINT_SWEEP_INTERVAL_MS + ":Integer=" + PINT_SWEEP_INTERVAL_MS_DEFAULT,
        })
public class PintConformanceManager
        extends AbstractListenerManager<PathConformanceEvent, PathConformanceListener>
        implements PathConformanceService, PintEventSink {

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ShadowRouteService shadowRoutes;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected RerouteService rerouteService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ComponentConfigService cfgService;

    /** Controller clock of receipt and timeouts; tests substitute a manual clock. */
    protected Clock clock = Clock.systemUTC();

    private int maxPintFlows = MAX_PINT_FLOWS_DEFAULT;
    private int pintIdleTimeoutMs = PINT_IDLE_TIMEOUT_MS_DEFAULT;
    private int pintConfirmTimeoutMs = PINT_CONFIRM_TIMEOUT_MS_DEFAULT;
    private int pintSweepIntervalMs = PINT_SWEEP_INTERVAL_MS_DEFAULT;

    private volatile PathConformance table = new PathConformance(maxPintFlows, pintIdleTimeoutMs,
            pintConfirmTimeoutMs);
    private final PlanckRerouteListener rerouteListener = e -> onReroute(e.subject());
    private ScheduledExecutorService sweeper;
    private ScheduledFuture<?> sweepTask;

    @Activate
    protected void activate(ComponentContext context) {
        if (cfgService != null) { // absent in tests
            cfgService.registerProperties(getClass());
        }
        eventDispatcher.addSink(PathConformanceEvent.class, listenerRegistry);
        sweeper = Executors.newSingleThreadScheduledExecutor(groupedThreads("planck/pint", "sweeper", log));
        readConfig(context == null ? null : context.getProperties());
        rerouteService.addListener(rerouteListener);
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
        rerouteService.removeListener(rerouteListener);
        sweeper.shutdownNow();
        eventDispatcher.removeSink(PathConformanceEvent.class);
        log.info("Stopped");
    }

    /**
     * Applies configuration properties (names in {@link OsgiPropertyConstants}); a change of the
     * bounds or timeouts starts an empty table.
     *
     * @param properties property name to value, or null for the current values
     */
    protected void readConfig(Dictionary<?, ?> properties) {
        Dictionary<?, ?> props = properties == null ? new Hashtable<>() : properties;
        int max = positive(props, MAX_PINT_FLOWS, maxPintFlows);
        int idle = positive(props, PINT_IDLE_TIMEOUT_MS, pintIdleTimeoutMs);
        int confirm = positive(props, PINT_CONFIRM_TIMEOUT_MS, pintConfirmTimeoutMs);
        pintSweepIntervalMs = positive(props, PINT_SWEEP_INTERVAL_MS, pintSweepIntervalMs);
        if (max != maxPintFlows || idle != pintIdleTimeoutMs || confirm != pintConfirmTimeoutMs) {
            maxPintFlows = max;
            pintIdleTimeoutMs = idle;
            pintConfirmTimeoutMs = confirm;
            table = new PathConformance(max, idle, confirm);
        }
        if (sweepTask != null) {
            sweepTask.cancel(false);
        }
        sweepTask = sweeper.scheduleAtFixedRate(this::sweepSafely, pintSweepIntervalMs, pintSweepIntervalMs,
                TimeUnit.MILLISECONDS);
        log.info("PINT conformance: at most {} flows, idle timeout {} ms, confirmation timeout {} ms, sweep every"
                + " {} ms", maxPintFlows, pintIdleTimeoutMs, pintConfirmTimeoutMs, pintSweepIntervalMs);
    }

    private int positive(Dictionary<?, ?> props, String name, int current) {
        int v = Tools.getIntegerProperty(props, name, current);
        if (v > 0) {
            return v;
        }
        log.warn("Ignoring {}={}: must be > 0", name, v);
        return current;
    }

    @Override
    public void accept(String collector, List<PintPathEvent> paths, List<PintHopLatency> latencies) {
        long now = clock.millis();
        List<PathConformance.Transition> out = new ArrayList<>();
        PathConformance t = table;
        if (!latencies.isEmpty()) {
            t.onLatencies(latencies, now);
        }
        if (!paths.isEmpty()) {
            t.onPaths(paths, now, PlannedPaths.snapshot(shadowRoutes), out);
        }
        report(out);
    }

    private void onReroute(Reroute r) {
        table.onMove(r.flow(), r.fromPath(), r.toPath(), r.timeMillis());
    }

    /**
     * Expires idle flows and judges every flow, so confirmation timeouts are reported without
     * anyone asking; the sweeper runs it, tests call it.
     */
    protected void sweep() {
        long now = clock.millis();
        PathConformance t = table;
        t.expire(now);
        List<PathConformance.Transition> out = new ArrayList<>();
        t.evaluateAll(now, PlannedPaths.snapshot(shadowRoutes), out);
        report(out);
    }

    private void sweepSafely() {
        try {
            sweep();
        } catch (RuntimeException e) {
            log.warn("PINT conformance sweep failed", e);
        }
    }

    private void report(List<PathConformance.Transition> out) {
        for (PathConformance.Transition tr : out) {
            FlowConformance v = tr.verdict();
            if (v.status() == ConformanceStatus.NON_CONFORMING) {
                log.warn("Flow {} is not on its planned path: traced {}, planned #{} {}", v.flow(), v.tracedPath(),
                        v.plannedIndex(), v.plannedPath());
                post(new PathConformanceEvent(PathConformanceEvent.Type.NON_CONFORMING, v));
            } else {
                post(new PathConformanceEvent(PathConformanceEvent.Type.MOVE_CONFIRMED, v));
            }
        }
    }

    @Override
    public Collection<FlowConformance> flows() {
        List<PathConformance.Transition> out = new ArrayList<>();
        List<FlowConformance> all = table.evaluateAll(clock.millis(), PlannedPaths.snapshot(shadowRoutes), out);
        report(out);
        return all;
    }

    @Override
    public Optional<FlowConformance> flow(FlowKey flow) {
        List<PathConformance.Transition> out = new ArrayList<>();
        Optional<FlowConformance> v = table.evaluate(flow, clock.millis(), PlannedPaths.snapshot(shadowRoutes), out);
        report(out);
        return v;
    }

    @Override
    public PintCounters counters() {
        return table.counters();
    }
}
