package org.planck.app.inband;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.util.KryoNamespace;
import org.onosproject.net.ConnectPoint;
import org.onosproject.store.service.TestStorageService;
import org.planck.api.config.CongestionSignal;
import org.planck.api.inband.IntCongestionSink;
import org.planck.api.inband.IntCounters;
import org.planck.api.inband.IntPortState;
import org.planck.api.telemetry.IntPortSignal;
import org.planck.app.PlanckTestBed;
import org.planck.app.telemetry.ManualClock;

import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.planck.app.TestConfigs.config;

/**
 * INT port state: signals applied per port, stale ones ignored, the table bounded, idle ports
 * expired, queue congestion marks (threshold, hysteresis, several queues) handed to the sink
 * once per change, thresholds and signal taken from the network config.
 */
public class IntPortStateManagerTest {
    private static final ConnectPoint P1 = ConnectPoint.deviceConnectPoint("of:0000000000000002/4");
    private static final ConnectPoint P2 = ConnectPoint.deviceConnectPoint("of:0000000000000003/1");
    private final PlanckTestBed bed = new PlanckTestBed();
    private final ManualClock clock = new ManualClock(1_000_000);
    private final List<String> marks = new ArrayList<>();
    private final List<CongestionSignal> signals = new ArrayList<>();
    private IntPortStateManager m;
    private long us = 1_763_718_000_000_000L;

    private final IntCongestionSink sink = new IntCongestionSink() {
        @Override
        public void setIntQueueCongested(ConnectPoint port, boolean congested, long receivedNanos) {
            marks.add(port + (congested ? " congested" : " cleared"));
        }

        @Override
        public void setCongestionSignal(CongestionSignal signal) {
            signals.add(signal);
        }
    };

    @Before
    public void setUp() {
        bed.configure(config().json().put("intQueueThreshold", 100).put("intQueueHysteresis", 20)
                .put("congestionSignal", "both"));
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(OsgiPropertyConstants.MAX_INT_PORTS, 2);
        props.put(OsgiPropertyConstants.INT_IDLE_TIMEOUT_MS, 3000);
        props.put(OsgiPropertyConstants.INT_SWEEP_INTERVAL_MS, 3_600_000);
        m = IntPortStateManager.standalone(new TestStorageService(), sink, bed.config, clock, props);
    }

    @After
    public void tearDown() {
        m.deactivateStandalone();
    }

    private IntPortSignal queue(ConnectPoint p, int q, long v, long at) {
        return new IntPortSignal(p, IntPortSignal.Signal.QUEUE_OCCUPANCY, v, q, IntPortSignal.Cause.INTERVAL, at);
    }

    private IntPortSignal latency(ConnectPoint p, long v, long at) {
        return new IntPortSignal(p, IntPortSignal.Signal.HOP_LATENCY, v, -1, IntPortSignal.Cause.PERIODIC, at);
    }

    private void send(IntPortSignal... s) {
        m.accept("c1", List.of(s), System.nanoTime());
    }

    @Test
    public void takesSignalAndThresholdsFromTheNetworkConfig() {
        assertEquals(List.of(CongestionSignal.BOTH), signals);
        bed.configure(config().json().put("intQueueThreshold", 100).put("congestionSignal", "int"));
        assertEquals(CongestionSignal.INT, signals.get(signals.size() - 1));
    }

    @Test
    public void keepsTheLatestValueOfEachSignalAndIgnoresStaleOnes() {
        send(queue(P1, 0, 10, us), queue(P1, 3, 30, us), latency(P1, 500, us));
        send(new IntPortSignal(P1, IntPortSignal.Signal.LINK_UTILIZATION, 70, -1, IntPortSignal.Cause.NEW_KEY, us));
        IntPortState s = m.port(P1).orElseThrow();
        assertEquals(Map.of(0, 10L, 3, 30L), s.queues());
        assertEquals(500, s.hopLatencyNs());
        assertEquals(70, s.linkUtilization());
        assertEquals(IntPortSignal.Cause.NEW_KEY, s.lastCause());
        assertEquals("c1", s.collector());
        assertEquals(clock.millis(), s.updatedMillis());
        // Reordered delivery: an older latency changes nothing; a newer one applies.
        send(latency(P1, 900, us - 1));
        assertEquals(500, m.port(P1).orElseThrow().hopLatencyNs());
        send(latency(P1, 900, us + 1));
        assertEquals(900, m.port(P1).orElseThrow().hopLatencyNs());
        IntCounters c = m.counters();
        assertEquals(5, c.applied());
        assertEquals(1, c.stale());
        assertTrue(marks.isEmpty());
    }

    @Test
    public void queueCongestionWithHysteresisAcrossQueues() {
        send(queue(P1, 0, 99, us++));
        assertTrue(marks.isEmpty());
        send(queue(P1, 0, 100, us++));
        assertEquals(List.of(P1 + " congested"), marks);
        // Queue 1 high too, queue 0 drains to 50: the port stays congested while any queue is high.
        send(queue(P1, 1, 150, us), queue(P1, 0, 50, us++));
        send(queue(P1, 1, 81, us++));
        assertEquals("80..99 is within the hysteresis", 1, marks.size());
        send(queue(P1, 1, 79, us++));
        assertEquals(List.of(P1 + " congested", P1 + " cleared"), marks);
        // Up and down within one batch: no net change, nothing handed over.
        send(queue(P1, 0, 500, us), queue(P1, 0, 10, us + 1));
        us += 2;
        assertEquals(2, marks.size());
        assertEquals(1, m.counters().congested());
        assertEquals(1, m.counters().cleared());
    }

    @Test
    public void aNewThresholdRejudgesStandingPorts() {
        send(queue(P1, 0, 90, us++));
        assertTrue(marks.isEmpty());
        bed.configure(config().json().put("intQueueThreshold", 80).put("congestionSignal", "both"));
        assertEquals(List.of(P1 + " congested"), marks);
        assertTrue(m.port(P1).orElseThrow().queueCongested());
    }

    @Test
    public void tableIsBoundedAndIdlePortsExpireLiftingTheirMarks() {
        ConnectPoint p3 = ConnectPoint.deviceConnectPoint("of:0000000000000009/9");
        send(queue(P1, 0, 500, us), queue(P2, 0, 1, us), queue(p3, 0, 1, us));
        assertEquals(2, m.ports().size());
        assertFalse(m.port(p3).isPresent());
        assertEquals(1, m.counters().dropped());
        clock.advanceMillis(2000);
        send(queue(P2, 0, 2, us + 1));
        clock.advanceMillis(1500);
        assertEquals("P1 idle 3.5 s, P2 1.5 s", 1, m.expireIdle());
        assertFalse(m.port(P1).isPresent());
        assertTrue(m.port(P2).isPresent());
        assertEquals(List.of(P1 + " congested", P1 + " cleared"), marks);
        assertEquals(1, m.counters().expired());
        // Room again for a new port.
        send(queue(p3, 0, 1, us + 2));
        assertTrue(m.port(p3).isPresent());
    }

    @Test
    public void stateSurvivesTheClusterSerializer() {
        send(queue(P1, 7, 123, us), queue(P1, 2, 5, us), latency(P1, 42, us));
        IntPortState s = m.port(P1).orElseThrow();
        KryoNamespace k = KryoNamespace.newBuilder().register(IntPortStateManager.SERIALIZER).build();
        IntPortState back = k.deserialize(k.serialize(s));
        assertEquals(s, back);
        assertEquals(Map.of(2, 5L, 7, 123L), back.queues());
    }
}
