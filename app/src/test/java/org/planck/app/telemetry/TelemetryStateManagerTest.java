package org.planck.app.telemetry;

import com.google.common.collect.ImmutableList;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.ComponentContextAdapter;
import org.onlab.junit.TestUtils;
import org.onosproject.net.ConnectPoint;
import org.onosproject.store.service.EventuallyConsistentMap;
import org.planck.api.telemetry.CongestionSource;
import org.planck.api.telemetry.CongestionState;
import org.planck.api.telemetry.FlowRecord;
import org.planck.api.telemetry.IngestCounters;
import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.MalformedBatchException;
import org.planck.api.telemetry.PlanckCongestionEvent;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.api.telemetry.TelemetryBatchCodec;
import org.planck.api.telemetry.TelemetryEvent;
import org.planck.app.SyncEventDelivery;
import org.planck.app.telemetry.algo.CollectorCongestion;
import org.planck.app.telemetry.algo.FlowAtSwitch;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.planck.app.telemetry.TelemetryFixtures.flow;
import static org.planck.app.telemetry.TelemetryFixtures.notice;
import static org.planck.app.telemetry.TelemetryFixtures.rate;
import static org.planck.app.telemetry.TestFabric.port;

/**
 * Ingest -> flow/port state -> congestion events, with the SDK's storage and device adapters.
 */
public class TelemetryStateManagerTest {
    private static final long T0 = 1_763_718_000_000L;
    // 1 Gb/s ports: 90% threshold = 112.5 MB/s, clear below 80% = 100 MB/s.
    private static final double MBPS = 1e6;

    private TestFabric fabric;
    private ManualClock clock;
    private TelemetryStateManager manager;
    private final List<PlanckCongestionEvent> events = new ArrayList<>();
    private long seq;

    @Before
    public void setUp() {
        fabric = new TestFabric(4, 4, 1000);
        clock = new ManualClock(T0);
        manager = TelemetryFixtures.manager(fabric, clock);
        manager.addListener(events::add);
    }

    @After
    public void tearDown() {
        manager.deactivate();
    }

    private IngestResult ingest(TelemetryEvent... es) {
        return manager.ingest(new TelemetryBatch("c1", seq++, clock.millis() * 1000, Arrays.asList(es)));
    }

    @Test
    public void portLoadIsTheSumOfFlowRatesAndFollowsUpdatesAndMoves() {
        IngestResult r = ingest(rate(1, port(1, 1), 10 * MBPS, 100), rate(2, port(1, 1), 20 * MBPS, 100),
                rate(3, port(1, 2), 30 * MBPS, 100));
        assertEquals(new IngestResult(3, 0, 0), r);
        assertEquals(240_000_000L, manager.load(port(1, 1)).loadBps());
        assertEquals(2, manager.load(port(1, 1)).flowCount());
        assertEquals(0.24, manager.load(port(1, 1)).utilization(), 1e-12);
        assertEquals(240_000_000L, manager.load(port(1, 2)).loadBps());

        // Rate update of flow 2, and flow 1 moves to port 2 (rerouted at this switch).
        ingest(rate(2, port(1, 1), 5 * MBPS, 200), rate(1, port(1, 2), 10 * MBPS, 200));
        assertEquals(40_000_000L, manager.load(port(1, 1)).loadBps());
        assertEquals(1, manager.load(port(1, 1)).flowCount());
        assertEquals(320_000_000L, manager.load(port(1, 2)).loadBps());
        assertEquals(3, manager.flowRecordCount());
        assertThat(flowsOf(manager.flowsOn(port(1, 2))), containsInAnyOrder(flow(1), flow(3)));
    }

    @Test
    public void aFlowSeenAtTwoSwitchesLoadsBothPorts() {
        ingest(rate(7, port(1, 3), 10 * MBPS, 100), rate(7, port(2, 4), 11 * MBPS, 100));
        assertEquals(2, manager.flows(flow(7)).size());
        assertEquals(80_000_000L, manager.load(port(1, 3)).loadBps());
        assertEquals(88_000_000L, manager.load(port(2, 4)).loadBps());
    }

    @Test
    public void unknownDevicesAndPortsAreCountedAndSkipped() {
        IngestResult r = ingest(rate(1, port(9, 1), MBPS, 100), rate(2, port(1, 9), MBPS, 100),
                notice(port(9, 1), CongestionState.CONGESTED, 0.95), rate(3, port(1, 1), MBPS, 100));
        assertEquals(new IngestResult(1, 2, 1), r);
        assertEquals(1, manager.flowRecordCount());
        assertTrue(manager.congestedPorts().isEmpty());
        IngestCounters c = manager.counters();
        assertEquals(2, c.unknownDevice());
        assertEquals(1, c.unknownPort());
        assertEquals(1, c.flowRateEvents());
    }

    @Test
    public void collectorNoticesCongestAndClearAPort() {
        ingest(notice(port(1, 1), CongestionState.CONGESTED, 0.93));
        assertEquals(1, events.size());
        assertEquals(PlanckCongestionEvent.Type.CONGESTED, events.get(0).type());
        assertEquals(port(1, 1), events.get(0).subject());
        assertEquals(CongestionSource.COLLECTOR, events.get(0).source());
        assertEquals(0.93, events.get(0).utilization(), 0);
        assertTrue(manager.load(port(1, 1)).congested());
        // A repeated notice is not a transition.
        ingest(notice(port(1, 1), CongestionState.CONGESTED, 0.95));
        assertEquals(1, events.size());
        ingest(notice(port(1, 1), CongestionState.CLEARED, 0.5));
        assertEquals(2, events.size());
        assertEquals(PlanckCongestionEvent.Type.CLEARED, events.get(1).type());
        assertTrue(manager.congestedPorts().isEmpty());
    }

    @Test
    public void loadViewCrossingTheThresholdCongestsWithHysteresis() {
        // Network config defaults: congested at 80 %, cleared below 75 %.
        ingest(rate(1, port(2, 2), 90 * MBPS, 100)); // 72%
        assertTrue(events.isEmpty());
        ingest(rate(2, port(2, 2), 15 * MBPS, 100)); // 84%
        assertEquals(1, events.size());
        assertEquals(PlanckCongestionEvent.Type.CONGESTED, events.get(0).type());
        assertEquals(CongestionSource.LOAD_VIEW, events.get(0).source());
        assertEquals(0.84, events.get(0).utilization(), 1e-9);
        ingest(rate(2, port(2, 2), 5 * MBPS, 200)); // 76%: inside the hysteresis band, still congested
        assertEquals(1, events.size());
        assertTrue(manager.load(port(2, 2)).congested());
        ingest(rate(1, port(2, 2), 80 * MBPS, 200)); // 68%
        assertEquals(2, events.size());
        assertEquals(PlanckCongestionEvent.Type.CLEARED, events.get(1).type());
    }

    @Test
    public void portStaysCongestedWhileEitherSourceSaysSo() {
        ingest(notice(port(3, 1), CongestionState.CONGESTED, 0.91), rate(1, port(3, 1), 120 * MBPS, 100));
        assertEquals(1, events.size());
        ingest(notice(port(3, 1), CongestionState.CLEARED, 0.7));
        assertEquals("load view still sees 96%", 1, events.size());
        ingest(rate(1, port(3, 1), 10 * MBPS, 200));
        assertEquals(2, events.size());
        assertEquals(PlanckCongestionEvent.Type.CLEARED, events.get(1).type());
        assertEquals(CongestionSource.LOAD_VIEW, events.get(1).source());
    }

    @Test
    public void thresholdCanBeChanged() {
        manager.setCongestionThreshold(50, 5);
        ingest(rate(1, port(1, 1), 70 * MBPS, 100)); // 56%
        assertEquals(1, events.size());
        try {
            manager.setCongestionThreshold(50, 60);
            fail("hysteresis above threshold accepted");
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage(), startsWith("hysteresis must be in [0, threshold)"));
        }
    }

    @Test
    public void thresholdDefaultsToTheNetworkConfigDefault() {
        // Nothing has applied a network config yet: PlanckSettings' default (80 %) holds.
        ingest(rate(1, port(1, 1), 106 * MBPS, 100)); // 85%
        assertEquals("85% is over the 80% default", 1, events.size());
    }

    @Test
    public void otherPropertiesLeaveTheConfiguredThresholdAlone() {
        // The network config (through the TE component) is the only owner of the threshold.
        manager.setCongestionThreshold(50, 5);
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(OsgiPropertyConstants.FLOW_IDLE_TIMEOUT_MS, "5000");
        props.put(OsgiPropertyConstants.SWEEP_INTERVAL_MS, "3600000");
        // Names the component once owned: they must have no effect any more.
        props.put("congestionThresholdPercent", "90");
        props.put("congestionHysteresisPercent", "10");
        manager.modified(new ComponentContextAdapter() {
            @Override
            public Dictionary getProperties() {
                return props;
            }
        });
        assertEquals(5000, manager.flowIdleTimeoutMs());
        ingest(rate(1, port(1, 1), 70 * MBPS, 100)); // 56%
        assertEquals("56% is over the configured 50%", 1, events.size());
    }

    @Test
    public void olderEstimatesDoNotReplaceNewerOnes() {
        ingest(rate(1, port(1, 1), 50 * MBPS, 500));
        IngestResult r = ingest(rate(1, port(1, 1), 1 * MBPS, 400));
        assertEquals(1, r.accepted());
        assertEquals(400_000_000L, manager.load(port(1, 1)).loadBps());
        assertEquals(1, manager.counters().staleEvents());
    }

    @Test
    public void idleFlowsExpireAndTheirLoadAndCongestionGo() {
        ingest(rate(1, port(1, 1), 120 * MBPS, 100), rate(2, port(1, 2), 1 * MBPS, 100));
        assertEquals(1, events.size());
        clock.advanceMillis(1500);
        ingest(rate(2, port(1, 2), 1 * MBPS, 200));
        clock.advanceMillis(600); // flow 1 idle 2100 ms, flow 2 idle 600 ms
        assertEquals(1, manager.expireIdle());
        assertEquals(ImmutableList.of(flow(2)), flowsOf(manager.flows()));
        assertEquals(0, manager.load(port(1, 1)).loadBps());
        assertEquals(2, events.size());
        assertEquals(PlanckCongestionEvent.Type.CLEARED, events.get(1).type());
        clock.advanceMillis(2000);
        assertEquals(1, manager.expireIdle());
        assertEquals(0, manager.flowRecordCount());
        assertTrue(manager.loads().isEmpty());
        assertEquals(2, manager.counters().expiredFlows());
    }

    @Test
    public void aStandingNoticeOnAPortWithoutLiveFlowsExpires() {
        ingest(notice(port(1, 4), CongestionState.CONGESTED, 0.95), rate(1, port(1, 3), MBPS, 100));
        clock.advanceMillis(2500);
        ingest(rate(1, port(1, 3), MBPS, 200));
        manager.expireIdle();
        assertFalse(manager.load(port(1, 4)).congested());
        assertEquals(PlanckCongestionEvent.Type.CLEARED, events.get(events.size() - 1).type());
        assertEquals(CongestionSource.EXPIRY, events.get(events.size() - 1).source());
    }

    @Test
    public void aMalformedBatchChangesNothingAndIsCounted() throws Exception {
        ingest(rate(1, port(1, 1), 10 * MBPS, 100));
        TelemetryBatchCodec codec = new TelemetryBatchCodec();
        TelemetryBatch good = new TelemetryBatch("c1", 99, 0, Arrays.asList(rate(2, port(1, 1), 10 * MBPS, 100),
                notice(port(1, 2), CongestionState.CONGESTED, 0.99)));
        // Valid first event, invalid second: the whole batch must be refused.
        String bad = new String(codec.encodeBytes(good), StandardCharsets.UTF_8).replace("\"CONGESTED\"", "\"HOT\"");
        try {
            manager.ingest(new ByteArrayInputStream(bad.getBytes(StandardCharsets.UTF_8)));
            fail("malformed batch accepted");
        } catch (MalformedBatchException e) {
            assertThat(e.getMessage(), startsWith("events[1].state: unknown state"));
        }
        assertEquals(ImmutableList.of(flow(1)), flowsOf(manager.flows()));
        assertEquals(80_000_000L, manager.load(port(1, 1)).loadBps());
        assertTrue(manager.congestedPorts().isEmpty());
        assertEquals(1, manager.counters().rejectedBatches());
        assertEquals(1, manager.counters().batches());

        IngestResult r = manager.ingest(new ByteArrayInputStream(codec.encodeBytes(good)));
        assertEquals(new IngestResult(2, 0, 0), r);
        assertEquals(2, manager.flowRecordCount());
    }

    @Test
    public void theFlowTableIsBoundedAndOverflowIsCounted() {
        java.util.Hashtable<String, Object> props = new java.util.Hashtable<>();
        props.put(OsgiPropertyConstants.MAX_FLOW_RECORDS, "2");
        manager.modified(new org.onlab.osgi.ComponentContextAdapter() {
            @Override
            public java.util.Dictionary getProperties() {
                return props;
            }
        });
        ingest(rate(1, port(1, 1), MBPS, 100), rate(2, port(1, 1), MBPS, 100), rate(3, port(1, 1), MBPS, 100));
        assertEquals(2, manager.flowRecordCount());
        assertEquals(1, manager.counters().droppedFlowEvents());
        // Known flows still update at the limit.
        ingest(rate(1, port(1, 2), MBPS, 200));
        assertEquals(8_000_000L, manager.load(port(1, 2)).loadBps());
        assertEquals(1, manager.counters().droppedFlowEvents());
    }

    @Test
    public void sequenceGapsCountAsLostBatches() {
        manager.ingest(new TelemetryBatch("c9", 10, 0, ImmutableList.of()));
        manager.ingest(new TelemetryBatch("c9", 11, 0, ImmutableList.of()));
        manager.ingest(new TelemetryBatch("c9", 15, 0, ImmutableList.of()));
        manager.ingest(new TelemetryBatch("other", 3, 0, ImmutableList.of()));
        // 13 arrives late (the collector's notice lane overtook it): not lost.
        manager.ingest(new TelemetryBatch("c9", 13, 0, ImmutableList.of()));
        assertEquals(0, manager.counters().lostBatches());
        // 64 numbers later 12 and 14 have left the window unseen; another collector's
        // numbers are its own.
        manager.ingest(new TelemetryBatch("c9", 79, 0, ImmutableList.of()));
        manager.ingest(new TelemetryBatch("other", 4, 0, ImmutableList.of()));
        assertEquals(2, manager.counters().lostBatches());
    }

    @Test
    @SuppressWarnings("unchecked")
    public void replicatedRecordsFromOtherNodesUpdateTheLoadView() {
        EventuallyConsistentMap<FlowAtSwitch, FlowRecord> replica =
                (EventuallyConsistentMap<FlowAtSwitch, FlowRecord>) TestUtils.getField(manager, "flows");
        FlowRecord remote = FlowRecord.of(rate(5, port(2, 1), 12.5 * MBPS, 100), "c2", clock.millis());
        replica.put(new FlowAtSwitch(flow(5), port(2, 1).deviceId()), remote);
        assertEquals(100_000_000L, manager.load(port(2, 1)).loadBps());
        replica.remove(new FlowAtSwitch(flow(5), port(2, 1).deviceId()));
        assertEquals(0, manager.load(port(2, 1)).loadBps());
    }

    @Test
    public void replicatedStateSerializes() {
        FlowRecord r = FlowRecord.of(rate(5, port(2, 1), 12.5 * MBPS, 100), "c2", T0);
        FlowAtSwitch k = new FlowAtSwitch(flow(5), port(2, 1).deviceId());
        CollectorCongestion c = new CollectorCongestion(notice(port(2, 1), CongestionState.CONGESTED, 0.9), "c2", T0);
        assertEquals(r, TelemetryStateManager.SERIALIZER.deserialize(TelemetryStateManager.SERIALIZER.serialize(r)));
        assertEquals(k, TelemetryStateManager.SERIALIZER.deserialize(TelemetryStateManager.SERIALIZER.serialize(k)));
        CollectorCongestion c2 = TelemetryStateManager.SERIALIZER.deserialize(
                TelemetryStateManager.SERIALIZER.serialize(c));
        assertEquals(c.notice(), c2.notice());
        assertEquals(T0, c2.appliedMillis());
        ConnectPoint cp = TelemetryStateManager.SERIALIZER.deserialize(
                TelemetryStateManager.SERIALIZER.serialize(port(2, 1)));
        assertEquals(port(2, 1), cp);
    }

    @Test
    public void aStandaloneManagerRunsOutsideOsgiWithDefaults() {
        TelemetryStateManager m = TelemetryStateManager.standalone(new org.onosproject.store.service.TestStorageService(),
                fabric, new SyncEventDelivery(), clock);
        try {
            assertEquals(OsgiPropertyConstants.FLOW_IDLE_TIMEOUT_MS_DEFAULT, m.flowIdleTimeoutMs());
            m.ingest(new TelemetryBatch("c1", 0, 0, Arrays.asList(rate(1, port(1, 1), 120 * MBPS, 100))));
            assertEquals(java.util.Set.of(port(1, 1)), m.congestedPorts());
        } finally {
            m.deactivateStandalone();
        }
        java.util.Hashtable<String, Object> config = new java.util.Hashtable<>();
        config.put(OsgiPropertyConstants.FLOW_IDLE_TIMEOUT_MS, "5000");
        config.put(OsgiPropertyConstants.SWEEP_INTERVAL_MS, "not a number");
        TelemetryStateManager configured = TelemetryStateManager.standalone(
                new org.onosproject.store.service.TestStorageService(), fabric, new SyncEventDelivery(), clock, config);
        try {
            assertEquals(5000, configured.flowIdleTimeoutMs());
            // The malformed sweep interval is ignored; 92% congests at the network config's default 80%.
            configured.ingest(new TelemetryBatch("c1", 0, 0, Arrays.asList(rate(1, port(1, 1), 115 * MBPS, 100))));
            assertEquals(java.util.Set.of(port(1, 1)), configured.congestedPorts());
        } finally {
            configured.deactivateStandalone();
        }
    }

    static List<org.planck.api.FlowKey> flowsOf(java.util.Collection<FlowRecord> records) {
        List<org.planck.api.FlowKey> keys = new ArrayList<>();
        records.forEach(r -> keys.add(r.flow()));
        return keys;
    }
}
