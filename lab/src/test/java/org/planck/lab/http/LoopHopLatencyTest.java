package org.planck.lab.http;

import org.junit.Test;
import org.planck.lab.FakeCollector;
import org.planck.lab.FakeFabric;
import org.planck.lab.control.CollectorClient;
import org.planck.lab.control.TeSettings;
import org.planck.lab.emu.EmulatorClient;

import java.util.Arrays;

import static org.junit.Assert.assertTrue;

/**
 * The controller's own HTTP hops (JDK client to a JDK server made by {@link NoDelayHttpServer})
 * answer far below the 40 ms a delayed ACK would add to each request/answer pair.
 */
public class LoopHopLatencyTest {
    private static final int PAIRS = 50;

    private interface Call {
        void run() throws Exception;
    }

    private static double medianMs(Call call) throws Exception {
        call.run();
        double[] ms = new double[PAIRS];
        for (int i = 0; i < PAIRS; i++) {
            long t = System.nanoTime();
            call.run();
            ms[i] = (System.nanoTime() - t) / 1e6;
        }
        Arrays.sort(ms);
        return ms[PAIRS / 2];
    }

    @Test
    public void controllerToFabricRequestsDoNotStall() throws Exception {
        try (FakeFabric fabric = FakeFabric.fatTree(1_000_000_000L)) {
            EmulatorClient emu = new EmulatorClient(fabric.control());
            // The counters answer spans several segments.
            double median = medianMs(emu::counters);
            assertTrue("median counters read " + median + " ms: a delayed-ACK stall (~40 ms)", median < 25);
        }
    }

    @Test
    public void controllerToCollectorRequestsDoNotStall() throws Exception {
        try (FakeCollector collector = new FakeCollector(1, "u", "p", 60_000)) {
            CollectorClient client = new CollectorClient(collector.control());
            double median = medianMs(() -> client.pushConfig(TeSettings.defaults()));
            assertTrue("median config push " + median + " ms: a delayed-ACK stall (~40 ms)", median < 25);
        }
    }
}
