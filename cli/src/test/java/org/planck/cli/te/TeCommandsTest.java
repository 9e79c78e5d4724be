package org.planck.cli.te;

import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.planck.api.FlowKey;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteRejectedException;
import org.planck.api.te.TeMode;
import org.planck.api.te.TeService;

import java.util.ArrayList;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

public class TeCommandsTest {
    private static final FlowKey LIVE = FlowKey.of(IpAddress.valueOf("10.0.0.2"), IpAddress.valueOf("10.2.1.3"),
            6, 40001, 5201);

    private static final class FakeTe implements TeService {
        TeMode requested = TeMode.PLANCK;
        boolean enabled = true;
        final List<FlowKey> moved = new ArrayList<>();

        @Override
        public TeMode requestedMode() {
            return requested;
        }

        @Override
        public TeMode mode() {
            return enabled ? requested : TeMode.STATIC;
        }

        @Override
        public boolean teEnabled() {
            return enabled;
        }

        @Override
        public void setMode(TeMode mode) {
            requested = mode;
        }

        @Override
        public Reroute reroute(FlowKey flow, int pathIndex) throws RerouteRejectedException {
            if (!flow.equals(LIVE)) {
                throw new RerouteRejectedException(RerouteRejectedException.Reason.UNKNOWN_FLOW, "no live flow " + flow);
            }
            if (pathIndex > 3) {
                throw new RerouteRejectedException(RerouteRejectedException.Reason.PATH_OUT_OF_RANGE,
                        "path " + pathIndex + " out of range");
            }
            moved.add(flow);
            return new Reroute(flow, null, 0, pathIndex, MacAddress.valueOf("02:70:00:00:00:01"), 9, 0);
        }
    }

    @Test
    public void showsAndSetsTheMode() {
        FakeTe te = new FakeTe();
        assertEquals("mode=PLANCK", TeModeCommand.run(te, null));
        assertEquals("mode=POLL", TeModeCommand.run(te, "poll"));
        te.enabled = false;
        assertEquals("mode=STATIC (requested POLL; teEnabled=false in the network config forces STATIC)",
                TeModeCommand.run(te, null));
        try {
            TeModeCommand.run(te, "fast");
            fail("accepted");
        } catch (IllegalArgumentException e) {
            assertEquals("unknown mode fast: expected STATIC, POLL or PLANCK", e.getMessage());
        }
        assertEquals(TeMode.POLL, te.requested);
        assertEquals(List.of("STATIC", "POLL", "PLANCK"), new TeModeCompleter().choices());
    }

    @Test
    public void reroutesAFlowAndRejectsBadArguments() throws Exception {
        FakeTe te = new FakeTe();
        assertEquals(LIVE + " moved from path 0 to path 2 (shadow MAC 02:70:00:00:00:01) in 9 us",
                RerouteCommand.run(te, "10.0.0.2", "10.2.1.3", "6", "40001", "5201", "2"));
        String[][] bad = {
            {"10.0.0.x", "10.2.1.3", "6", "1", "2", "0", "src: not an IP address: 10.0.0.x"},
            {"10.0.0.2", "::1", "6", "1", "2", "0", "dst: IP version differs from src"},
            {"10.0.0.2", "10.2.1.3", "300", "1", "2", "0", "proto: expected 0..255, got 300"},
            {"10.0.0.2", "10.2.1.3", "6", "x", "2", "0", "sport: not a number: x"},
            {"10.0.0.2", "10.2.1.3", "6", "1", "2", "-1", "path: expected 0..2147483647, got -1"},
        };
        for (String[] b : bad) {
            try {
                RerouteCommand.run(te, b[0], b[1], b[2], b[3], b[4], b[5]);
                fail("accepted " + String.join(" ", b));
            } catch (IllegalArgumentException e) {
                assertEquals(b[6], e.getMessage());
            }
        }
        try {
            RerouteCommand.run(te, "10.0.0.2", "10.2.1.3", "6", "40001", "5201", "7");
            fail("accepted path 7");
        } catch (RerouteRejectedException e) {
            assertEquals(RerouteRejectedException.Reason.PATH_OUT_OF_RANGE, e.reason());
        }
        try {
            RerouteCommand.run(te, "10.0.0.3", "10.2.1.3", "6", "40001", "5201", "1");
            fail("accepted unknown flow");
        } catch (RerouteRejectedException e) {
            assertEquals(RerouteRejectedException.Reason.UNKNOWN_FLOW, e.reason());
        }
        assertEquals(1, te.moved.size());
    }
}
