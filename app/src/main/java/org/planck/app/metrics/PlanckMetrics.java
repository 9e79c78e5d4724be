package org.planck.app.metrics;

import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.CounterMetricFamily;
import io.prometheus.client.GaugeMetricFamily;
import io.prometheus.client.Histogram;
import io.prometheus.client.exporter.common.TextFormat;
import org.onosproject.net.ConnectPoint;
import org.planck.api.CollectorPushStatus;
import org.planck.api.admission.AdmissionCounters;
import org.planck.api.telemetry.IngestCounters;
import org.planck.api.telemetry.PlanckCongestionEvent;
import org.planck.api.telemetry.PortLoad;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Planck's metrics over a private Prometheus registry. Counters owned elsewhere (ingestion,
 * reroutes) and per-port state are read at scrape time, so the hot paths only bump their own
 * LongAdders; the decision-latency histogram is fed directly. Plain class: no ONOS services.
 */
public final class PlanckMetrics {

    /** Decision-latency buckets in seconds: 10 µs to 100 ms, around the 100 µs p99 target. */
    static final double[] LATENCY_BUCKETS_SECONDS = {
        10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3,
    };

    private final CollectorRegistry registry = new CollectorRegistry();
    private final Histogram decisionLatency;
    private final LongAdder congested = new LongAdder();
    private final LongAdder cleared = new LongAdder();
    private volatile AdmissionSource admission;

    private static final class AdmissionSource {
        private final Supplier<AdmissionCounters> counters;
        private final IntSupplier guarantees;

        AdmissionSource(Supplier<AdmissionCounters> counters, IntSupplier guarantees) {
            this.counters = counters;
            this.guarantees = guarantees;
        }
    }

    /**
     * Creates the metrics.
     *
     * @param ingest     ingestion counters
     * @param flowCount  live flow records
     * @param reroutes   reroutes so far
     * @param portLoads  per-port loads
     */
    public PlanckMetrics(Supplier<IngestCounters> ingest, IntSupplier flowCount, LongSupplier reroutes,
                         Supplier<Collection<PortLoad>> portLoads) {
        this(ingest, flowCount, reroutes, portLoads, Collections::emptyList);
    }

    /**
     * Creates the metrics, including the forwarding-map push counters of the configured collectors.
     *
     * @param ingest     ingestion counters
     * @param flowCount  live flow records
     * @param reroutes   reroutes so far
     * @param portLoads  per-port loads
     * @param pushes     push status of every configured collector
     */
    public PlanckMetrics(Supplier<IngestCounters> ingest, IntSupplier flowCount, LongSupplier reroutes,
                         Supplier<Collection<PortLoad>> portLoads,
                         Supplier<Collection<CollectorPushStatus>> pushes) {
        checkNotNull(ingest, "ingest");
        checkNotNull(pushes, "pushes");
        checkNotNull(flowCount, "flowCount");
        checkNotNull(reroutes, "reroutes");
        checkNotNull(portLoads, "portLoads");
        decisionLatency = Histogram.build()
                .name("planck_te_decision_latency_seconds")
                .help("Time from receipt of the telemetry that triggered a traffic-engineering decision "
                        + "to submission of the flow rule")
                .buckets(LATENCY_BUCKETS_SECONDS)
                .withoutExemplars()
                .register(registry);
        new StateCollector(ingest, flowCount, reroutes, portLoads).register(registry);
        new PushCollector(pushes).register(registry);
        new AdmissionCollector().register(registry);
    }

    /**
     * Where the admission metrics come from (absent until admission control is running).
     *
     * @param counters   the admission service's counters, or null while it is not running
     * @param guarantees guarantees admitted now
     */
    public void admissionSource(Supplier<AdmissionCounters> counters, IntSupplier guarantees) {
        checkNotNull(counters, "counters");
        checkNotNull(guarantees, "guarantees");
        admission = new AdmissionSource(counters, guarantees);
    }

    /**
     * Records a decision latency.
     *
     * @param micros microseconds, >= 0
     */
    public void recordDecisionLatencyMicros(long micros) {
        checkArgument(micros >= 0, "latency must be >= 0");
        decisionLatency.observe(micros / 1e6);
    }

    /**
     * Counts a congestion transition.
     *
     * @param type CONGESTED or CLEARED
     */
    public void countCongestion(PlanckCongestionEvent.Type type) {
        (type == PlanckCongestionEvent.Type.CONGESTED ? congested : cleared).increment();
    }

    /**
     * Every metric in the Prometheus text format 0.0.4.
     *
     * @return exposition text
     */
    public String exposition() {
        StringWriter out = new StringWriter();
        try {
            // _created series are OpenMetrics-only noise in the 0.0.4 format.
            TextFormat.write004(out, registry.filteredMetricFamilySamples(name -> !name.endsWith("_created")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private final class StateCollector extends Collector {
        private final Supplier<IngestCounters> ingest;
        private final IntSupplier flowCount;
        private final LongSupplier reroutes;
        private final Supplier<Collection<PortLoad>> portLoads;

        StateCollector(Supplier<IngestCounters> ingest, IntSupplier flowCount, LongSupplier reroutes,
                       Supplier<Collection<PortLoad>> portLoads) {
            this.ingest = ingest;
            this.flowCount = flowCount;
            this.reroutes = reroutes;
            this.portLoads = portLoads;
        }

        @Override
        public List<MetricFamilySamples> collect() {
            List<MetricFamilySamples> mfs = new ArrayList<>();
            IngestCounters c = ingest.get();
            mfs.add(new CounterMetricFamily("planck_telemetry_batches_total",
                    "Telemetry batches accepted", c.batches()));
            mfs.add(new CounterMetricFamily("planck_telemetry_rejected_batches_total",
                    "Telemetry batches rejected as malformed; nothing in them was applied", c.rejectedBatches()));
            mfs.add(new CounterMetricFamily("planck_telemetry_events_total",
                    "Telemetry events applied, by event type", Collections.singletonList("type"))
                    .addMetric(Collections.singletonList("FLOW_RATE"), c.flowRateEvents())
                    .addMetric(Collections.singletonList("PORT_CONGESTION"), c.congestionNotices()));
            mfs.add(new CounterMetricFamily("planck_telemetry_unknown_device_events_total",
                    "Telemetry events skipped because they name an unknown device", c.unknownDevice()));
            mfs.add(new CounterMetricFamily("planck_telemetry_unknown_port_events_total",
                    "Telemetry events skipped because they name an unknown port", c.unknownPort()));
            mfs.add(new CounterMetricFamily("planck_telemetry_stale_events_total",
                    "Flow-rate events older than the estimate already held (not applied)", c.staleEvents()));
            mfs.add(new CounterMetricFamily("planck_telemetry_lost_batches_total",
                    "Batches missing from collectors' sequence numbers", c.lostBatches()));
            mfs.add(new CounterMetricFamily("planck_telemetry_dropped_flow_events_total",
                    "Flow-rate events for new flows not applied because the flow table was full",
                    c.droppedFlowEvents()));
            mfs.add(new CounterMetricFamily("planck_flows_expired_total",
                    "Flow records removed after the idle timeout", c.expiredFlows()));
            mfs.add(new GaugeMetricFamily("planck_flow_records",
                    "Live flow records (one per flow and switch reporting it)", flowCount.getAsInt()));
            mfs.add(new CounterMetricFamily("planck_reroutes_total",
                    "Flows moved onto another shadow path", reroutes.getAsLong()));
            mfs.add(new CounterMetricFamily("planck_congestion_transitions_total",
                    "Port congestion transitions, by new state", Collections.singletonList("state"))
                    .addMetric(Collections.singletonList("CONGESTED"), congested.sum())
                    .addMetric(Collections.singletonList("CLEARED"), cleared.sum()));

            List<String> labels = Arrays.asList("device", "port");
            // Prometheus' base unit is bytes, so the bit rates of the load view are exported / 8.
            GaugeMetricFamily load = new GaugeMetricFamily("planck_port_load_bytes_per_second",
                    "Sum of the rates of the flows placed on a port", labels);
            GaugeMetricFamily capacity = new GaugeMetricFamily("planck_port_capacity_bytes_per_second",
                    "Port capacity (0 if unknown)", labels);
            GaugeMetricFamily utilization = new GaugeMetricFamily("planck_port_utilization_ratio",
                    "Port load over capacity (0 if the capacity is unknown)", labels);
            GaugeMetricFamily congestedPort = new GaugeMetricFamily("planck_port_congested",
                    "1 if the port is congested, else 0", labels);
            int congestedPorts = 0;
            for (PortLoad l : portLoads.get()) {
                ConnectPoint cp = l.port();
                List<String> values = Arrays.asList(cp.deviceId().toString(), Long.toString(cp.port().toLong()));
                load.addMetric(values, l.loadBps() / 8.0);
                capacity.addMetric(values, l.capacityBps() / 8.0);
                utilization.addMetric(values, l.utilization());
                congestedPort.addMetric(values, l.congested() ? 1 : 0);
                congestedPorts += l.congested() ? 1 : 0;
            }
            mfs.add(load);
            mfs.add(capacity);
            mfs.add(utilization);
            mfs.add(congestedPort);
            mfs.add(new GaugeMetricFamily("planck_congested_ports", "Ports currently congested", congestedPorts));
            return mfs;
        }
    }

    /** Forwarding-map push counters per collector (see CollectorPushStatus). */
    private static final class PushCollector extends Collector {
        private final Supplier<Collection<CollectorPushStatus>> pushes;

        PushCollector(Supplier<Collection<CollectorPushStatus>> pushes) {
            this.pushes = pushes;
        }

        @Override
        public List<MetricFamilySamples> collect() {
            List<String> labels = Collections.singletonList("collector");
            CounterMetricFamily delivered = new CounterMetricFamily("planck_collector_push_delivered_total",
                    "Forwarding-map pushes the collector accepted (2xx)", labels);
            CounterMetricFamily failed = new CounterMetricFamily("planck_collector_push_failed_attempts_total",
                    "Push attempts that failed (connection error, timeout, 5xx) and were retried", labels);
            CounterMetricFamily rejected = new CounterMetricFamily("planck_collector_push_rejected_total",
                    "Pushes the collector refused (4xx, including stale generations)", labels);
            CounterMetricFamily superseded = new CounterMetricFamily("planck_collector_push_superseded_total",
                    "Pending pushes replaced by a newer map before delivery", labels);
            CounterMetricFamily abandoned = new CounterMetricFamily("planck_collector_push_abandoned_total",
                    "Pushes given up after the last retry", labels);
            GaugeMetricFamily generation = new GaugeMetricFamily("planck_collector_delivered_generation",
                    "Generation of the newest map the collector accepted (-1 if none)", labels);
            GaugeMetricFamily pending = new GaugeMetricFamily("planck_collector_pending_generation",
                    "Generation waiting to be delivered (-1 if none)", labels);
            for (CollectorPushStatus s : pushes.get()) {
                List<String> id = Collections.singletonList(s.collectorId());
                delivered.addMetric(id, s.delivered());
                failed.addMetric(id, s.failedAttempts());
                rejected.addMetric(id, s.rejected());
                superseded.addMetric(id, s.superseded());
                abandoned.addMetric(id, s.abandoned());
                generation.addMetric(id, s.deliveredGeneration());
                pending.addMetric(id, s.pendingGeneration());
            }
            return Arrays.asList(delivered, failed, rejected, superseded, abandoned, generation, pending);
        }
    }

    /** Admission control (docs/loko.md): only while the admission service runs. */
    private final class AdmissionCollector extends Collector {
        @Override
        public List<MetricFamilySamples> collect() {
            AdmissionSource src = admission;
            AdmissionCounters c = src == null ? null : src.counters.get();
            if (c == null) {
                return List.of();
            }
            GaugeMetricFamily guarantees = new GaugeMetricFamily("planck_guarantees",
                    "Latency guarantees admitted now", src.guarantees.getAsInt());
            CounterMetricFamily admitted = new CounterMetricFamily("planck_admission_admitted_total",
                    "Guarantee requests admitted", c.admitted());
            CounterMetricFamily rejected = new CounterMetricFamily("planck_admission_rejected_total",
                    "Guarantee requests refused, by reason (bad_request: invalid; no_capacity: no path "
                            + "meets every admitted flow's deadline)", Collections.singletonList("reason"));
            rejected.addMetric(Collections.singletonList("bad_request"), c.rejectedBadRequest());
            rejected.addMetric(Collections.singletonList("no_capacity"), c.rejectedNoCapacity());
            CounterMetricFamily vetoed = new CounterMetricFamily("planck_admission_moves_vetoed_total",
                    "Traffic-engineering moves refused because they would break a guarantee", c.movesVetoed());
            GaugeMetricFamily slowest = new GaugeMetricFamily("planck_admission_max_decision_seconds",
                    "Longest admission decision so far", c.maxDecisionMicros() / 1e6);
            return Arrays.asList(guarantees, admitted, rejected, vetoed, slowest);
        }
    }
}
