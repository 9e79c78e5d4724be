package org.planck.cli.inband;

import org.junit.Test;
import org.onosproject.net.ConnectPoint;
import org.planck.api.inband.IntCounters;
import org.planck.api.inband.IntPortService;
import org.planck.api.inband.IntPortState;
import org.planck.api.telemetry.IntPortSignal;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

import static org.junit.Assert.assertEquals;

public class IntPortsCommandTest {
    private static final ConnectPoint P1 = ConnectPoint.deviceConnectPoint("of:0000000000000002/4");
    private static final ConnectPoint P2 = ConnectPoint.deviceConnectPoint("of:0000000000000003/1");

    private static IntPortState queue(ConnectPoint p, int q, long v) {
        return IntPortState.empty(p).with(new IntPortSignal(p, IntPortSignal.Signal.QUEUE_OCCUPANCY, v, q,
                IntPortSignal.Cause.INTERVAL, 1), "c1", 5);
    }

    private static final IntPortService SERVICE = new IntPortService() {
        @Override
        public Collection<IntPortState> ports() {
            IntPortState p1 = queue(P1, 0, 900).with(new IntPortSignal(P1, IntPortSignal.Signal.HOP_LATENCY, 260, -1,
                    IntPortSignal.Cause.PERIODIC, 2), "c1", 6).withQueueCongested(true);
            return List.of(queue(P2, 3, 10), p1);
        }

        @Override
        public Optional<IntPortState> port(ConnectPoint port) {
            return Optional.empty();
        }

        @Override
        public IntCounters counters() {
            return new IntCounters(3, 1, 2, 0, 1, 0);
        }
    };

    @Test
    public void listsLargestQueueFirstThenCounters() {
        assertEquals(List.of(
                "of:0000000000000002/4 queues=[0:900] hopLatency=260 ns utilization=- cause=PERIODIC collector=c1"
                        + " QUEUE-CONGESTED",
                "of:0000000000000003/1 queues=[3:10] hopLatency=- utilization=- cause=INTERVAL collector=c1",
                "signals applied=3 stale=1 dropped=2; ports expired=0; marks set=1 lifted=0"),
                IntPortsCommand.lines(SERVICE, false, Integer.MAX_VALUE));
        assertEquals(2, IntPortsCommand.lines(SERVICE, true, 10).size());
        assertEquals(1, IntPortsCommand.lines(SERVICE, false, 0).size());
    }
}
