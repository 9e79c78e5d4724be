package org.planck.app.metrics;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.MacAddress;
import org.planck.api.CollectorForwardingMap;
import org.planck.api.CollectorPushStatus;
import org.planck.api.ForwardingMapService;
import org.planck.api.admission.AdmissionCounters;
import org.planck.api.admission.AdmissionService;
import org.planck.api.admission.Guarantee;
import org.planck.api.admission.GuaranteeListener;
import org.planck.api.admission.GuaranteeRequest;
import org.planck.api.te.PlanckRerouteEvent;
import org.planck.api.te.Reroute;
import org.planck.api.telemetry.CongestionState;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.api.telemetry.TelemetryEvent;
import org.planck.app.PlanckTestBed;
import org.planck.app.TestConfigs;
import org.planck.app.reroute.RerouteLog;
import org.planck.app.telemetry.ManualClock;
import org.planck.app.telemetry.TelemetryFixtures;
import org.planck.app.telemetry.TelemetryStateManager;
import org.planck.app.telemetry.TestFabric;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.planck.app.telemetry.TelemetryFixtures.flow;
import static org.planck.app.telemetry.TelemetryFixtures.notice;
import static org.planck.app.telemetry.TelemetryFixtures.rate;
import static org.planck.app.telemetry.TestFabric.port;

/**
 * The metrics of a realistic state, as Prometheus would scrape them. The exposition is also
 * written to target/planck-metrics.prom, which src/test/system/metrics-promtool.sh checks
 * with {@code promtool check metrics}.
 */
public class PlanckMetricsExpositionTest {
    /** Where the exposition of the realistic state is written for promtool. */
    public static final Path EXPOSITION_FILE = Paths.get("target", "planck-metrics.prom");

    private TelemetryStateManager telemetry;
    private RerouteLog reroutes;
    private PlanckMetricsManager metrics;

    @Before
    public void setUp() throws Exception {
        ManualClock clock = new ManualClock(1_763_718_000_000L);
        telemetry = TelemetryFixtures.manager(new TestFabric(4, 8, 1000), clock);
        reroutes = TelemetryFixtures.rerouteManager();
        metrics = new PlanckMetricsManager();
        metrics.ingestService = telemetry;
        metrics.flowStateService = telemetry;
        metrics.portLoadService = telemetry;
        metrics.rerouteService = reroutes;
        PlanckTestBed config = new PlanckTestBed();
        config.configure(TestConfigs.config().collector("c1", "127.0.0.1", 9000)
                .collector("c2", "127.0.0.1", 9001).json());
        metrics.configService = config.config;
        metrics.forwardingMapService = new ForwardingMapService() {
            @Override
            public Optional<CollectorForwardingMap> forwardingMap(String collectorId) {
                return Optional.empty();
            }

            @Override
            public Optional<CollectorPushStatus> pushStatus(String id) {
                return Optional.of("c1".equals(id)
                        ? new CollectorPushStatus(id, 7, -1, 7, 3, 1, 2, 0, "")
                        : new CollectorPushStatus(id, -1, 2, 0, 5, 0, 0, 1, "connection refused"));
            }
        };
        metrics.activate();

        List<TelemetryEvent> es = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            es.add(rate(i, port(1 + i % 4, 1 + i % 8), 2_000_000 + 100_000 * i, 100));
        }
        es.add(rate(99, port(2, 2), 115_000_000, 100)); // drives s2/p2 over 90% on its own
        es.add(notice(port(3, 5), CongestionState.CONGESTED, 0.97));
        es.add(rate(7, port(9, 1), 1000, 100)); // unknown device
        telemetry.ingest(new TelemetryBatch("c1", 1, 0, es));
        // Unknown port. 2 and 3 are lost: they left the 64-number window unseen (4..66 may still come).
        telemetry.ingest(new TelemetryBatch("c1", 67, 0, List.of(rate(0, port(1, 9), 1000, 200))));
        try {
            telemetry.ingest(new ByteArrayInputStream("{\"version\":3}".getBytes(StandardCharsets.UTF_8)));
            fail("version 3 accepted");
        } catch (org.planck.api.telemetry.MalformedBatchException expected) {
            // counted as rejected
        }
        for (long us : new long[] {12, 35, 48, 80, 95, 130, 400, 2500}) {
            metrics.recordDecisionLatencyMicros(us);
        }
        for (int i = 0; i < 3; i++) {
            reroutes.report(PlanckRerouteEvent.Type.FLOW_REROUTED, new Reroute(flow(i), port(2, 2), 0, 1,
                    MacAddress.valueOf(0x027000000200L + i), 50, 0));
        }
    }

    @After
    public void tearDown() {
        metrics.deactivate();
        TelemetryFixtures.stop(telemetry);
    }

    @Test
    public void collectorPushCountersAreExported() {
        String text = metrics.exposition();
        assertThat(text, containsString("# TYPE planck_collector_push_delivered_total counter"));
        assertThat(text, containsString("planck_collector_push_delivered_total{collector=\"c1\",} 7.0"));
        assertThat(text, containsString("planck_collector_push_failed_attempts_total{collector=\"c1\",} 3.0"));
        assertThat(text, containsString("planck_collector_push_failed_attempts_total{collector=\"c2\",} 5.0"));
        assertThat(text, containsString("planck_collector_push_rejected_total{collector=\"c1\",} 1.0"));
        assertThat(text, containsString("planck_collector_push_superseded_total{collector=\"c1\",} 2.0"));
        assertThat(text, containsString("planck_collector_push_abandoned_total{collector=\"c2\",} 1.0"));
        assertThat(text, containsString("planck_collector_delivered_generation{collector=\"c2\",} -1.0"));
        assertThat(text, containsString("planck_collector_pending_generation{collector=\"c2\",} 2.0"));
    }

    @Test
    public void expositionCarriesEveryMetricWithItsValue() throws Exception {
        String text = metrics.exposition();
        Files.createDirectories(EXPOSITION_FILE.getParent());
        Files.write(EXPOSITION_FILE, text.getBytes(StandardCharsets.UTF_8));

        assertThat(text, containsString("# TYPE planck_telemetry_batches_total counter\nplanck_telemetry_batches_total 2.0\n"));
        assertThat(text, containsString("planck_telemetry_rejected_batches_total 1.0\n"));
        assertThat(text, containsString("planck_telemetry_events_total{type=\"FLOW_RATE\",} 41.0\n"));
        assertThat(text, containsString("planck_telemetry_events_total{type=\"PORT_CONGESTION\",} 1.0\n"));
        assertThat(text, containsString("planck_telemetry_unknown_device_events_total 1.0\n"));
        assertThat(text, containsString("planck_telemetry_unknown_port_events_total 1.0\n"));
        assertThat(text, containsString("planck_telemetry_lost_batches_total 2.0\n"));
        assertThat(text, containsString("planck_flow_records 41.0\n"));
        assertThat(text, containsString("planck_reroutes_total 3.0\n"));
        assertThat(text, containsString("planck_congestion_transitions_total{state=\"CONGESTED\",} 2.0\n"));
        assertThat(text, containsString("# TYPE planck_te_decision_latency_seconds histogram\n"));
        assertThat(text, containsString("planck_te_decision_latency_seconds_bucket{le=\"1.0E-4\",} 5.0\n"));
        assertThat(text, containsString("planck_te_decision_latency_seconds_bucket{le=\"+Inf\",} 8.0\n"));
        assertThat(text, containsString("planck_te_decision_latency_seconds_count 8.0\n"));
        // s2/p2 carries flows 1, 5, ... (2.1, 2.5, ... MB/s) and flow 99 at 115 MB/s.
        assertThat(text, containsString("planck_port_congested{device=\"of:0000000000000002\",port=\"2\",} 1.0\n"));
        assertThat(text, containsString("planck_port_congested{device=\"of:0000000000000003\",port=\"5\",} 1.0\n"));
        assertThat(text, containsString("planck_congested_ports 2.0\n"));
        assertThat(text, containsString(
                "planck_port_capacity_bytes_per_second{device=\"of:0000000000000001\",port=\"1\",} 1.25E8\n"));
        assertTrue("no OpenMetrics-only _created series", !text.contains("_created"));
        long utilLines = text.lines().filter(l -> l.startsWith("planck_port_utilization_ratio{")).count();
        assertEquals(telemetry.loads().size(), utilLines);
    }

    @Test
    public void admissionMetricsAppearWhileTheAdmissionServiceRuns() {
        assertTrue("no admission metrics without the service", !metrics.exposition().contains("planck_guarantees"));
        AdmissionService admission = new AdmissionService() {
            @Override
            public Guarantee admit(GuaranteeRequest request) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean remove(String id) {
                return false;
            }

            @Override
            public List<Guarantee> guarantees() {
                return List.of();
            }

            @Override
            public Optional<Guarantee> guarantee(String id) {
                return Optional.empty();
            }

            @Override
            public Map<String, Long> currentBounds() {
                return Map.of();
            }

            @Override
            public AdmissionCounters counters() {
                return new AdmissionCounters(4, 2, 14, 3, 912);
            }

            @Override
            public void addListener(GuaranteeListener listener) {
            }

            @Override
            public void removeListener(GuaranteeListener listener) {
            }
        };
        metrics.bindAdmission(admission);
        String text = metrics.exposition();
        assertThat(text, containsString("planck_guarantees 0.0\n"));
        assertThat(text, containsString("planck_admission_admitted_total 4.0\n"));
        assertThat(text, containsString("planck_admission_rejected_total{reason=\"bad_request\",} 2.0\n"));
        assertThat(text, containsString("planck_admission_rejected_total{reason=\"no_capacity\",} 14.0\n"));
        assertThat(text, containsString("planck_admission_moves_vetoed_total 3.0\n"));
        assertThat(text, containsString("planck_admission_max_decision_seconds 9.12E-4\n"));
        metrics.unbindAdmission(admission);
        assertTrue("admission metrics gone with the service", !metrics.exposition().contains("planck_guarantees"));
    }
}
