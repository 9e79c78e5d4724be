package org.planck.lab.experiment;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.onlab.packet.IpAddress;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.inband.ConformanceStatus;
import org.planck.api.inband.FlowConformance;
import org.planck.api.inband.PintCounters;

import java.nio.file.Files;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The PINT conformance summary counts moved flows by status, takes delays and packets of the
 * confirmed ones only, and the CSV has a row per flow; FabricSpec writes the [pint] section.
 */
public class PintConformanceLogTest {
    @Rule
    public TemporaryFolder dir = new TemporaryFolder();

    private static FlowKey flow(int sport) {
        return FlowKey.of(IpAddress.valueOf("10.0.0.1"), IpAddress.valueOf("10.0.0.9"), 6, sport, 5001);
    }

    private static FlowConformance confirmed(int sport, long delay, long packets) {
        List<DeviceId> p = List.of(DeviceId.deviceId("of:1"), DeviceId.deviceId("of:2"));
        return FlowConformance.builder(flow(sport), ConformanceStatus.MOVED_CONFIRMED)
                .traced(p, 1000 + delay, packets, 2).planned(1, p).moved(1000, 0, 1, 1).statusSince(1000 + delay)
                .build();
    }

    @Test
    public void summarisesMovedFlows() throws Exception {
        PintConformanceLog log = new PintConformanceLog();
        List<DeviceId> p = List.of(DeviceId.deviceId("of:1"));
        log.add("stride(8)", "PlanckTE", 1, List.of(confirmed(1, 5, 12), confirmed(2, 9, 20), confirmed(3, 30, 7),
                FlowConformance.builder(flow(4), ConformanceStatus.MOVE_PENDING).moved(1000, 0, 2, 1).build(),
                FlowConformance.builder(flow(5), ConformanceStatus.CONFORMING).traced(p, 10, 5, 1).build(),
                FlowConformance.builder(flow(6), ConformanceStatus.NON_CONFORMING).traced(p, 10, 5, 1).build()),
                new PintCounters(6, 9, 0, 0, 0, 1, 3));
        String md = log.summary();
        assertTrue(md, md.contains("| stride(8) | PlanckTE | 1 | 5 | 4 | 3 | 1 | 0 | 0 | 9 / 30 / 30 | 12 / 20 / 20 | 1 |"));
        log.write(dir.getRoot().toPath());
        List<String> rows = Files.readAllLines(dir.getRoot().toPath().resolve(PintConformanceLog.CSV));
        assertEquals(7, rows.size());
        assertTrue(rows.get(1), rows.get(1).contains(",MOVED_CONFIRMED,2,12,1005,1,1000,0,1,5,of:1 of:2,of:1 of:2"));
    }

    @Test
    public void fabricConfigCarriesThePintSectionOnlyWhenOn() {
        String on = new FabricSpec(FabricSpec.Shape.FAT_TREE, 1_000_000_000L, "127.0.0.1:1", false, 8).toToml();
        assertTrue(on, on.contains("[pint]\npath_bits = 8\npath_hops = 5\nseed = 2020\n"));
        String off = new FabricSpec(FabricSpec.Shape.FAT_TREE, 1_000_000_000L, "127.0.0.1:1", false).toToml();
        assertTrue(off, !off.contains("[pint]"));
    }
}
