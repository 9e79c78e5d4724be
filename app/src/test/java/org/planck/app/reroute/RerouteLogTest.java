package org.planck.app.reroute;

import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.MacAddress;
import org.onosproject.net.NetTestTools;
import org.planck.api.te.PlanckRerouteEvent;
import org.planck.api.te.Reroute;
import org.planck.app.SyncEventDelivery;

import java.util.ArrayList;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.planck.app.telemetry.TelemetryFixtures.flow;
import static org.planck.app.telemetry.TestFabric.port;

/**
 * The reroute log and its events.
 */
public class RerouteLogTest {
    private RerouteLog manager;
    private final List<PlanckRerouteEvent> events = new ArrayList<>();

    @Before
    public void setUp() {
        manager = new RerouteLog();
        NetTestTools.injectEventDispatcher(manager, new SyncEventDelivery());
        manager.activate();
        manager.addListener(events::add);
    }

    private static Reroute reroute(int i) {
        return new Reroute(flow(i), port(1, 1), 0, 1 + i % 3, MacAddress.valueOf(0x027000000100L + i), 40 + i, i);
    }

    @Test
    public void reportsArePostedAndLoggedNewestFirst() {
        manager.report(PlanckRerouteEvent.Type.FLOW_REROUTED, reroute(1));
        manager.report(PlanckRerouteEvent.Type.FLOW_REROUTED_MANUALLY, reroute(2));
        assertEquals(2, events.size());
        assertEquals(PlanckRerouteEvent.Type.FLOW_REROUTED_MANUALLY, events.get(1).type());
        assertEquals(reroute(2), events.get(1).subject());
        assertEquals(reroute(2), manager.recent(10).get(0));
        assertEquals(1, manager.recent(1).size());
        assertEquals(2, manager.rerouteCount());
    }

    @Test
    public void theLogIsBounded() {
        for (int i = 0; i < RerouteLog.LOG_CAPACITY + 10; i++) {
            manager.report(PlanckRerouteEvent.Type.FLOW_REROUTED, reroute(i));
        }
        List<Reroute> log = manager.recent(Integer.MAX_VALUE);
        assertEquals(RerouteLog.LOG_CAPACITY, log.size());
        assertEquals(reroute(RerouteLog.LOG_CAPACITY + 9), log.get(0));
        assertEquals(reroute(10), log.get(log.size() - 1));
        assertEquals(RerouteLog.LOG_CAPACITY + 10, manager.rerouteCount());
    }
}
