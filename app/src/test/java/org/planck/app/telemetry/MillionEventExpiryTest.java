package org.planck.app.telemetry;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.net.ConnectPoint;
import org.planck.api.telemetry.CongestionState;
import org.planck.api.telemetry.FlowRecord;
import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.PlanckCongestionEvent;
import org.planck.api.telemetry.PortLoad;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.api.telemetry.TelemetryEvent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.planck.app.telemetry.TelemetryFixtures.notice;
import static org.planck.app.telemetry.TelemetryFixtures.rate;
import static org.planck.app.telemetry.TestFabric.port;

/**
 * One million events through the ingest service in full batches: the incremental port loads
 * always equal a recomputation from the flow records, and once the flows go idle the state
 * returns to empty (controlled clock, no sleeping).
 */
public class MillionEventExpiryTest {
    private static final int BATCHES = 100;
    private static final int FLOWS = 100_000;
    private static final int SWITCHES = 16;
    private static final int PORTS = 16;

    private ManualClock clock;
    private TelemetryStateManager manager;
    private final List<PlanckCongestionEvent> events = new ArrayList<>();

    @Before
    public void setUp() {
        clock = new ManualClock(1_763_718_000_000L);
        manager = TelemetryFixtures.manager(new TestFabric(SWITCHES, PORTS, 1000), clock);
        manager.addListener(events::add);
    }

    @After
    public void tearDown() {
        manager.deactivate();
    }

    private static ConnectPoint placement(int flow, int round) {
        // Every third flow moves between ports from round to round, as a rerouted flow would.
        int p = flow % 3 == 0 ? flow + round : flow;
        return port(1 + (flow / 7) % SWITCHES, 1 + p % PORTS);
    }

    @Test
    public void stateReturnsToEmptyAfterExpiry() {
        long sent = 0;
        for (int b = 0; b < BATCHES; b++) {
            int round = b / (FLOWS / TelemetryBatch.MAX_EVENTS);
            List<TelemetryEvent> es = new ArrayList<>(TelemetryBatch.MAX_EVENTS);
            for (int j = 0; j < TelemetryBatch.MAX_EVENTS; j++) {
                int flow = (b * TelemetryBatch.MAX_EVENTS + j) % FLOWS;
                if (j % 1000 == 999) {
                    ConnectPoint cp = port(1 + j % SWITCHES, 1 + b % PORTS);
                    es.add(notice(cp, b % 2 == 0 ? CongestionState.CONGESTED : CongestionState.CLEARED, 0.95));
                } else {
                    // ~ 0.25-0.5 MB/s per flow; with ~390 flows per port some ports cross 90% of 1 Gb/s.
                    double rate = 250_000 + (flow * 7919L + round * 104729L) % 250_000;
                    es.add(rate(flow, placement(flow, round), rate, 1_000_000L * (round + 1)));
                }
            }
            IngestResult r = manager.ingest(new TelemetryBatch("c1", b, 0, es));
            assertEquals(TelemetryBatch.MAX_EVENTS, r.accepted());
            sent += es.size();
            clock.advanceMillis(10);
        }
        assertEquals(1_000_000, sent);
        assertEquals(BATCHES, manager.counters().batches());
        assertEquals(1_000_000, manager.counters().flowRateEvents() + manager.counters().congestionNotices());
        assertEquals(FLOWS - FLOWS / 1000, manager.flowRecordCount());
        assertLoadsMatchRecords();
        assertTrue("some ports should have been congested by load", events.stream()
                .anyMatch(e -> e.type() == PlanckCongestionEvent.Type.CONGESTED));

        // Nothing is idle yet, 1 s after the last update.
        clock.advanceMillis(1000);
        assertEquals(0, manager.expireIdle());
        // Past the 2 s idle timeout everything goes: records, loads, congestion.
        clock.advanceMillis(manager.flowIdleTimeoutMs());
        assertEquals(FLOWS - FLOWS / 1000, manager.expireIdle());
        assertEquals(0, manager.flowRecordCount());
        assertTrue(manager.flows().isEmpty());
        assertTrue(manager.loads().isEmpty());
        assertTrue(manager.congestedPorts().isEmpty());
        long congested = events.stream().filter(e -> e.type() == PlanckCongestionEvent.Type.CONGESTED).count();
        long cleared = events.stream().filter(e -> e.type() == PlanckCongestionEvent.Type.CLEARED).count();
        assertEquals("every congestion was eventually cleared", congested, cleared);
    }

    private void assertLoadsMatchRecords() {
        Map<ConnectPoint, Long> expected = new HashMap<>();
        Map<ConnectPoint, Integer> counts = new HashMap<>();
        for (FlowRecord r : manager.flows()) {
            expected.merge(r.port(), r.bitsPerSec(), Long::sum);
            counts.merge(r.port(), 1, Integer::sum);
        }
        int withFlows = 0;
        for (PortLoad l : manager.loads()) {
            assertEquals(l.port().toString(), (long) expected.getOrDefault(l.port(), 0L), l.loadBps());
            assertEquals((int) counts.getOrDefault(l.port(), 0), l.flowCount());
            withFlows += l.flowCount() > 0 ? 1 : 0;
        }
        assertEquals(expected.size(), withFlows);
    }
}
