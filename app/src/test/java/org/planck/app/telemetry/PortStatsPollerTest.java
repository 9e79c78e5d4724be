package org.planck.app.telemetry;

import com.google.common.collect.ImmutableList;
import org.junit.Test;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DefaultPortStatistics;
import org.onosproject.net.device.PortStatistics;
import org.planck.api.telemetry.PortLoad;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.planck.app.telemetry.TestFabric.port;

/**
 * The Poll baseline's port utilisation from DeviceService delta statistics.
 */
public class PortStatsPollerTest {

    private static PortStatistics delta(DeviceId d, int port, long bytesSent, long sec, int nanos) {
        return DefaultPortStatistics.builder().setDeviceId(d).setPort(PortNumber.portNumber(port))
                .setBytesSent(bytesSent).setBytesReceived(bytesSent / 2)
                .setDurationSec(sec).setDurationNano(nanos).build();
    }

    @Test
    public void utilisationIsTransmittedBitsOverDeltaDuration() {
        TestFabric fabric = new TestFabric(2, 4, 1000);
        DeviceId s1 = TestFabric.deviceId(1);
        // 50 MB in 0.5 s = 800 Mb/s on a 1 Gb/s port; 12.5 MB in 1 s = 100 Mb/s; zero duration is skipped.
        fabric.setDeltas(s1, ImmutableList.of(delta(s1, 1, 50_000_000, 0, 500_000_000),
                delta(s1, 2, 12_500_000, 1, 0), delta(s1, 3, 1000, 0, 0)));
        Map<ConnectPoint, PortLoad> loads = new PortStatsPoller(fabric, 100, l -> { }).pollOnce();
        assertEquals(2, loads.size());
        assertEquals(800_000_000L, loads.get(port(1, 1)).loadBps());
        assertEquals(0.8, loads.get(port(1, 1)).utilization(), 1e-12);
        assertEquals(100_000_000L, loads.get(port(1, 2)).loadBps());
        assertFalse(loads.containsKey(port(1, 3)));
    }

    @Test
    public void portsOfUnknownSpeedReportLoadButNoUtilisation() {
        TestFabric fabric = new TestFabric(1, 1, 0);
        DeviceId s1 = TestFabric.deviceId(1);
        fabric.setDeltas(s1, ImmutableList.of(delta(s1, 1, 1_000_000, 1, 0)));
        PortLoad l = new PortStatsPoller(fabric, 100, x -> { }).pollOnce().get(port(1, 1));
        assertEquals(8_000_000L, l.loadBps());
        assertEquals(0.0, l.utilization(), 0);
    }

    @Test
    public void pollsPeriodicallyUntilStopped() throws Exception {
        TestFabric fabric = new TestFabric(1, 1, 1000);
        DeviceId s1 = TestFabric.deviceId(1);
        fabric.setDeltas(s1, ImmutableList.of(delta(s1, 1, 1_000_000, 1, 0)));
        CountDownLatch three = new CountDownLatch(3);
        List<Map<ConnectPoint, PortLoad>> seen = new ArrayList<>();
        PortStatsPoller poller = new PortStatsPoller(fabric, 5, l -> {
            synchronized (seen) {
                seen.add(l);
            }
            three.countDown();
        });
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
        try {
            poller.start(executor);
            assertTrue("three polls within 10 s", three.await(10, TimeUnit.SECONDS));
            poller.stop();
            synchronized (seen) {
                assertEquals(8_000_000L, seen.get(0).get(port(1, 1)).loadBps());
            }
        } finally {
            executor.shutdownNow();
        }
    }
}
