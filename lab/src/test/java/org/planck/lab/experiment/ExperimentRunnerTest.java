package org.planck.lab.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.planck.lab.FakeCollector;
import org.planck.lab.FakeFabric;
import org.planck.lab.control.CollectorClient;
import org.planck.lab.control.TeSettings;
import org.planck.lab.control.TelemetryEndpoint;
import org.planck.lab.emu.EmulatorTopology;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * The experiment runner end to end against a fake fabric (fluid model forwarding by the
 * installed rules) and a fake collector: every mode completes every flow, TE beats hash
 * placement on stride(8), Optimal reaches line rate, and the report is written.
 */
public class ExperimentRunnerTest {
    private static final long GBPS = 1_000_000_000L;

    @ClassRule
    public static final TemporaryFolder TMP = new TemporaryFolder();

    private static TelemetryEndpoint endpoint;
    private static FakeCollector collector;
    private static final List<FakeFabric> fabrics = new ArrayList<>();
    private static List<RunResult> results;

    @BeforeClass
    public static void runStride() throws Exception {
        endpoint = TelemetryEndpoint.start(new InetSocketAddress("127.0.0.1", 0), "lab", "pw");
        collector = new FakeCollector(endpoint.port(), "lab", "pw", 5);
        FabricLauncher launcher = spec -> {
            FakeFabric f = spec.shape() == FabricSpec.Shape.FAT_TREE ? FakeFabric.fatTree(spec.linkBps())
                    : FakeFabric.singleSwitch(spec.linkBps());
            fabrics.add(f);
            collector.watch(f);
            return new FabricLauncher.RunningFabric() {
                @Override
                public URI control() {
                    return f.control();
                }

                @Override
                public void close() {
                    collector.watch(null);
                    f.close();
                }
            };
        };
        ExperimentRunner.Options options = new ExperimentRunner.Options().flowBytes(16L << 20)
                .te(new TeSettings(80, 5, 50, 10, 5, 10)).mirrorInterface("plk-test0");
        ExperimentRunner runner = new ExperimentRunner(launcher, endpoint, new CollectorClient(collector.control()),
                                                       options, RunProgress.NONE);
        results = runner.runAll(List.of(Workload.STRIDE8),
                                List.of(RoutingMode.STATIC, RoutingMode.POLL, RoutingMode.PLANCK, RoutingMode.OPTIMAL),
                                GBPS);
    }

    @AfterClass
    public static void stop() {
        collector.close();
        endpoint.close();
    }

    private static RunResult result(RoutingMode m) {
        for (RunResult r : results) {
            if (r.mode() == m) {
                return r;
            }
        }
        throw new AssertionError("no run of " + m);
    }

    @Test
    public void everyRunCompletesEveryFlowOnItsOwnFabric() {
        assertEquals(4, results.size());
        assertEquals(4, fabrics.size());
        for (RunResult r : results) {
            assertEquals(r.mode().toString(), 16, r.flows().size());
            assertEquals(0, r.unmatched());
            r.flows().forEach(f -> assertEquals(16L << 20, f.bytes()));
        }
        assertEquals(4, new java.util.HashSet<>(fabrics).size());
    }

    @Test
    public void optimalReachesLineRateAndStaticHashPlacementDoesNot() {
        assertEquals(GBPS, result(RoutingMode.OPTIMAL).meanThroughputBps(), GBPS * 0.02);
        assertTrue("hash collisions on stride(8): " + result(RoutingMode.STATIC).meanThroughputBps(),
                   result(RoutingMode.STATIC).meanThroughputBps() < 0.9 * GBPS);
        assertEquals(0, result(RoutingMode.STATIC).moves());
        assertEquals(0, result(RoutingMode.OPTIMAL).moves());
    }

    @Test
    public void planckTeBeatsStaticAndPollDoesNoHarm() {
        double stat = result(RoutingMode.STATIC).meanThroughputBps();
        assertTrue(result(RoutingMode.POLL).moves() > 0);
        assertTrue(result(RoutingMode.PLANCK).moves() > 0);
        assertTrue(result(RoutingMode.PLANCK).moveLog().size() >= result(RoutingMode.PLANCK).moves());
        // Poll acts on interval averages 10 ms old: it must not do worse than no TE.
        assertTrue("poll " + result(RoutingMode.POLL).meanThroughputBps() + " vs static " + stat,
                   result(RoutingMode.POLL).meanThroughputBps() > 0.97 * stat);
        assertTrue("planck " + result(RoutingMode.PLANCK).meanThroughputBps() + " vs static " + stat,
                   result(RoutingMode.PLANCK).meanThroughputBps() > stat);
        assertTrue(result(RoutingMode.PLANCK).decisions().stream().anyMatch(d -> d.moves() > 0 && d.appliedUs() > 0));
    }

    @Test
    public void planckRunConfiguresMirrorsAndTheCollector() {
        FakeFabric planckFabric = fabrics.get(2);
        JsonNode mirrors = planckFabric.mirrorConfigs().get(0);
        assertEquals("plk-test0", mirrors.get("sink").get("name").asText());
        assertEquals(20, mirrors.get("mirrors").size());
        for (JsonNode m : mirrors.get("mirrors")) {
            assertEquals(EmulatorTopology.switchNumber(org.onosproject.net.DeviceId.deviceId(m.get("switch").asText())),
                         m.get("rspanVlan").asLong());
            assertEquals(GBPS / 10, m.get("rateBps").asLong());
        }
        // Every mode mirrors the same way (same fabric and collector load in every run).
        for (FakeFabric f : fabrics.subList(0, 3)) {
            assertEquals(mirrors, f.mirrorConfigs().get(0));
        }
        // Optimal's one non-blocking switch mirrors too.
        assertEquals(1, fabrics.get(3).mirrorConfigs().get(0).get("mirrors").size());
        assertEquals(fabrics.size(), collector.configPushes().size());
        assertEquals(80, collector.configPushes().get(0).get("congestionThresholdPct").asInt());
        JsonNode map = collector.forwardingPushes().get(0);
        assertEquals(1, map.get("version").asInt());
        assertEquals(20, map.get("switches").size());
        assertTrue(map.get("generation").asLong() > 0);
        JsonNode edge = map.get("switches").get(19);
        assertEquals(5, edge.get("mirrorPort").asInt());
        assertTrue(edge.get("entries").size() > 0);
    }

    @Test
    public void reportHoldsTablesAndCharts() throws Exception {
        Path dir = TMP.newFolder("report").toPath();
        new Report(results, LinkRateDecision.fixed(GBPS), "test", 10).write(dir);
        String md = Files.readString(dir.resolve(Report.MARKDOWN));
        assertTrue(md.contains("| stride(8) |"));
        assertTrue(md.contains("1 Gb/s"));
        assertTrue(md.contains("| PlanckTE | **sample → applied (loop)** |"));
        assertTrue(md.contains("| PlanckTE | decision → rules submitted |"));
        assertTrue(md.contains("| PlanckTE | submitted → fabric answer (applied) |"));
        // Poll's loop counts its window: the row exists and is at least the interval longer.
        assertTrue(md.contains("| Poll-10ms | measurement window start → applied |"));
        // PlanckTE - Poll paired by seed, with the one seed this test ran.
        assertTrue(md, md.contains("PlanckTE − Poll-10ms, paired by seed"));
        assertTrue(md, md.matches("(?s).*\\| stride\\(8\\) \\| 1 \\| 1: [0-9.]+/[0-9.]+ \\| -?[0-9.]+ \\| - \\(one seed\\) \\| no \\| [+-][0-9.]+ % \\| - \\(one seed\\) \\| no \\|.*"));
        // Poll is named after the interval it ran with.
        assertTrue(md.contains("| Poll-10ms |"));
        assertFalse(md.contains("Poll-100ms"));
        // The comparison the experiment is for, with the sign of each difference.
        assertTrue(md, md.matches("(?s).*\\| stride\\(8\\) \\| [0-9.]+ \\| (yes \\(\\+|no \\()[0-9.-]+ %\\) \\| "
                                  + "- \\| (yes \\(\\+|no \\()[0-9.-]+ %\\) \\|.*"));
        List<String> csv = Files.readAllLines(dir.resolve(Report.SUMMARY_CSV));
        assertEquals(5, csv.size());
        assertTrue(csv.get(4).startsWith("stride8,Optimal,1000000000,16,"));
        assertTrue(Files.size(dir.resolve(Report.cdfFile(Workload.STRIDE8))) > 1000);
        assertTrue(Files.size(dir.resolve(Report.LOOP_PNG)) > 1000);
        assertEquals(1 + 64, Files.readAllLines(dir.resolve(Report.FLOWS_CSV)).size());
        // One line per move TE decided, Poll's and PlanckTE's.
        List<String> moves = Files.readAllLines(dir.resolve(Report.MOVES_CSV));
        assertEquals(1 + result(RoutingMode.POLL).moveLog().size() + result(RoutingMode.PLANCK).moveLog().size(),
                     moves.size());
        assertTrue(moves.stream().skip(1).allMatch(l -> l.startsWith("stride8,Poll-10ms,")
                                                        || l.startsWith("stride8,PlanckTE,")));
    }
}
