package org.planck.app.metrics;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.planck.api.CollectorPushStatus;
import org.planck.api.ForwardingMapService;
import org.planck.api.admission.AdmissionService;
import org.planck.api.config.CollectorConfig;
import org.planck.api.config.PlanckConfigService;
import org.planck.api.config.PlanckSettings;
import org.planck.api.te.RerouteService;
import org.planck.api.telemetry.FlowStateService;
import org.planck.api.telemetry.PlanckCongestionListener;
import org.planck.api.telemetry.PlanckMetricsService;
import org.planck.api.telemetry.PortLoadService;
import org.planck.api.telemetry.TelemetryIngestService;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Serves Planck's metrics (see docs/metrics.md) from the telemetry, flow, port and reroute services.
 */
@Component(immediate = true, service = PlanckMetricsService.class)
public class PlanckMetricsManager implements PlanckMetricsService {

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected TelemetryIngestService ingestService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowStateService flowStateService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PortLoadService portLoadService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected RerouteService rerouteService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PlanckConfigService configService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ForwardingMapService forwardingMapService;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            bind = "bindAdmission", unbind = "unbindAdmission")
    protected volatile AdmissionService admissionService;

    private PlanckMetrics metrics;
    private final PlanckCongestionListener congestionListener = event -> metrics.countCongestion(event.type());

    @Activate
    protected void activate() {
        metrics = new PlanckMetrics(ingestService::counters, flowStateService::flowRecordCount,
                rerouteService::rerouteCount, portLoadService::loads, this::pushStatuses);
        metrics.admissionSource(this::admissionCounters, this::guaranteeCount);
        portLoadService.addListener(congestionListener);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        portLoadService.removeListener(congestionListener);
        log.info("Stopped");
    }

    protected void bindAdmission(AdmissionService service) {
        admissionService = service;
    }

    protected void unbindAdmission(AdmissionService service) {
        if (admissionService == service) {
            admissionService = null;
        }
    }

    private org.planck.api.admission.AdmissionCounters admissionCounters() {
        AdmissionService a = admissionService;
        return a == null ? null : a.counters();
    }

    private int guaranteeCount() {
        AdmissionService a = admissionService;
        return a == null ? 0 : a.guarantees().size();
    }

    /** Push status of every configured collector, read at scrape time. */
    private Collection<CollectorPushStatus> pushStatuses() {
        PlanckSettings s = configService.settings().orElse(null);
        if (s == null) {
            return List.of();
        }
        List<CollectorPushStatus> out = new ArrayList<>();
        for (CollectorConfig c : s.collectors()) {
            forwardingMapService.pushStatus(c.id()).ifPresent(out::add);
        }
        return out;
    }

    @Override
    public void recordDecisionLatencyMicros(long micros) {
        metrics.recordDecisionLatencyMicros(micros);
    }

    @Override
    public String exposition() {
        return metrics.exposition();
    }
}
