package org.planck.lab.experiment;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.onosproject.net.ConnectPoint;
import org.planck.api.config.CongestionSignal;
import org.planck.api.telemetry.IntPortSignal;
import org.planck.lab.control.IntQueueCongestion;
import org.planck.lab.control.LoopLatencyLog;

import java.nio.file.Files;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * int-source.csv: the fabric's INT counters and the controller's INT decisions per run.
 */
public class IntSourceLogTest {
    @Rule
    public final TemporaryFolder tmp = new TemporaryFolder();

    private static LoopLatencyLog.Entry entry(LoopLatencyLog.Trigger t, int moves) {
        return new LoopLatencyLog.Entry(t, ConnectPoint.deviceConnectPoint("of:0000000000000001/3"), 1, 2, 3,
                                        moves > 0 ? 4 : -1, moves > 0 ? 5 : -1, moves);
    }

    @Test
    public void countsTheFabricsReportsAndTheDecisionsTakenOnInt() throws Exception {
        IntQueueCongestion ports = new IntQueueCongestion(CongestionSignal.INT, 24, 16);
        ConnectPoint p = ConnectPoint.deviceConnectPoint("of:0000000000000001/3");
        ports.apply(new IntPortSignal(p, IntPortSignal.Signal.QUEUE_OCCUPANCY, 30, 3, IntPortSignal.Cause.NEW_KEY, 1),
                    "c1-int", 0);
        IntSourceLog log = new IntSourceLog();
        log.add("stride(8)", "PlanckTE", 4,
                new ObjectMapper().readTree("{\"sampled\":10,\"reports\":9,\"reportsDropped\":1,\"stacksLost\":0,"
                        + "\"unsunk\":0,\"hopsExceeded\":0,\"sinkErrors\":0}"),
                ports, List.of(entry(LoopLatencyLog.Trigger.INT_QUEUE, 2), entry(LoopLatencyLog.Trigger.INT_QUEUE, 0),
                               entry(LoopLatencyLog.Trigger.NOTICE, 5)));
        log.add("stride(8)", "Optimal", 4, MissingNode.getInstance(), IntQueueCongestion.mirrorsOnly(), List.of());
        log.write(tmp.getRoot().toPath());
        List<String> lines = Files.readAllLines(tmp.getRoot().toPath().resolve(IntSourceLog.CSV));
        assertEquals(3, lines.size());
        assertEquals("stride(8),PlanckTE,4,10,9,1,0,0,0,0,1,1,2,2", lines.get(1));
        assertEquals("stride(8),Optimal,4,0,0,0,0,0,0,0,0,0,0,0", lines.get(2));
        assertTrue(log.summary(), log.summary().contains("2 runs, 9 telemetry reports from the fabric, 1 INT_PORT signals"
                + " at the controller, 2 flows moved on INT queue congestion"));
    }
}
