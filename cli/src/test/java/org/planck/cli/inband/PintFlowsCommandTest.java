package org.planck.cli.inband;

import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.inband.ConformanceStatus;
import org.planck.api.inband.FlowConformance;
import org.planck.api.inband.PathConformanceListener;
import org.planck.api.inband.PathConformanceService;
import org.planck.api.inband.PintCounters;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

public class PintFlowsCommandTest {
    private static final DeviceId E1 = DeviceId.deviceId("of:1");
    private static final DeviceId A1 = DeviceId.deviceId("of:5");
    private static final DeviceId A2 = DeviceId.deviceId("of:6");
    private static final DeviceId E2 = DeviceId.deviceId("of:2");
    private static final FlowKey MOVED = FlowKey.of(IpAddress.valueOf("10.0.0.1"), IpAddress.valueOf("10.0.1.2"),
            6, 10001, 5001);
    private static final FlowKey BROKEN = FlowKey.of(IpAddress.valueOf("10.0.0.3"), IpAddress.valueOf("10.0.1.2"),
            6, 10002, 5001);

    private static final PathConformanceService SERVICE = new PathConformanceService() {
        @Override
        public Collection<FlowConformance> flows() {
            return List.of(FlowConformance.builder(MOVED, ConformanceStatus.MOVED_CONFIRMED)
                            .traced(List.of(E1, A2, E2), 1540, 9, 2).planned(1, List.of(E1, A2, E2))
                            .moved(1500, 0, 1, 1).statusSince(1540).build(),
                    FlowConformance.builder(BROKEN, ConformanceStatus.NON_CONFORMING)
                            .traced(List.of(E1, A1, E2), 1200, 14, 1).planned(0, List.of(E1, A2, E2))
                            .statusSince(1200).build());
        }

        @Override
        public Optional<FlowConformance> flow(FlowKey flow) {
            return Optional.empty();
        }

        @Override
        public PintCounters counters() {
            return new PintCounters(2, 3, 0, 0, 0, 1, 1);
        }

        @Override
        public void addListener(PathConformanceListener listener) {
        }

        @Override
        public void removeListener(PathConformanceListener listener) {
        }
    };

    @Test
    public void listsNonConformingFirstThenCounters() {
        List<String> lines = PintFlowsCommand.lines(SERVICE, PintFlowsCommand.filter(null, null, 10), 10);
        assertEquals(3, lines.size());
        assertEquals(BROKEN + " NON_CONFORMING traced=[of:1, of:5, of:2] planned=#0[of:1, of:6, of:2]"
                + " tracePackets=14", lines.get(0));
        assertEquals(MOVED + " MOVED_CONFIRMED traced=[of:1, of:6, of:2] planned=#1[of:1, of:6, of:2]"
                + " tracePackets=9 moved=#0->#1 moves=1 confirmedAfter=40 ms", lines.get(1));
        assertEquals("flows=2; paths=3 latencies=0 refused=0 expired=0; non-conforming=1 confirmed moves=1",
                lines.get(2));
        assertEquals(2, PintFlowsCommand.lines(SERVICE, PintFlowsCommand.filter("moved_confirmed", null, 5), 5).size());
        assertEquals(2, PintFlowsCommand.lines(SERVICE, PintFlowsCommand.filter(null, "10.0.0.3", 5), 5).size());
    }

    @Test
    public void badOptionsAreRejectedWithTheReason() {
        assertEquals("--limit must be >= 0", rejection(null, null, -1));
        assertEquals("--host: not an IP address: \"h\"", rejection(null, "h", 1));
        assertEquals(true, rejection("LOST", null, 1).startsWith("unknown status \"LOST\""));
    }

    private static String rejection(String status, String host, int limit) {
        try {
            PintFlowsCommand.filter(status, host, limit);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        fail("accepted status=" + status + " host=" + host + " limit=" + limit);
        return null;
    }
}
