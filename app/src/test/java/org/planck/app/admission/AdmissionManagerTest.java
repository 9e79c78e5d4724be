package org.planck.app.admission;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.meter.Band;
import org.onosproject.net.meter.MeterRequest;
import org.planck.api.FlowKey;
import org.planck.api.admission.AdmissionRejectedException;
import org.planck.api.admission.Guarantee;
import org.planck.api.admission.GuaranteeEvent;
import org.planck.api.admission.GuaranteeRequest;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.ShadowPath;
import org.planck.app.FabricTestBed;
import org.planck.app.admission.algo.AdmissionPlanner;
import org.planck.app.admission.algo.SwitchModel;
import org.planck.app.routing.algo.FatTreeFabric;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.onosproject.net.NetTestTools.injectEventDispatcher;
import static org.planck.app.TestConfigs.config;

/**
 * Admission control against the SDK adapters: a k=4 fat tree with shadow routes in force.
 */
public class AdmissionManagerTest {
    /** 10 MB/s shared service, 50 us latency: small enough that a few flows fill a switch. */
    static final SwitchModel MODEL = new SwitchModel(10_000_000, 50_000, 0, 1_000_000, 0, 0);
    static final long MS = 1_000_000;

    private FabricTestBed bed;
    private AdmissionManager adm;
    private RecordingMeterService meters;
    private final List<GuaranteeEvent> events = new ArrayList<>();

    @Before
    public void setUp() {
        bed = new FabricTestBed(4).start();
        bed.configure(config().k(4).json());
        meters = new RecordingMeterService();
        adm = manager(bed, meters);
        adm.addListener(events::add);
    }

    static AdmissionManager manager(FabricTestBed bed, RecordingMeterService meters) {
        return manager(bed, meters, MODEL);
    }

    /**
     * An activated admission manager on a test bed's routes and storage.
     *
     * @param bed    the fabric
     * @param meters meter service
     * @param model  model of every switch
     * @return the manager
     */
    public static AdmissionManager manager(FabricTestBed bed, RecordingMeterService meters, SwitchModel model) {
        return manager(bed, bed.storage, meters, model);
    }

    static AdmissionManager manager(FabricTestBed bed, org.onosproject.store.service.StorageService storage,
                                    RecordingMeterService meters, SwitchModel model) {
        AdmissionManager a = new AdmissionManager();
        FabricTestBed.set(a, "coreService", bed.core);
        FabricTestBed.set(a, "routeService", bed.routes);
        FabricTestBed.set(a, "storageService", storage);
        FabricTestBed.set(a, "meterService", meters);
        FabricTestBed.set(a, "flowRuleService", bed.flowRules);
        FabricTestBed.set(a, "cfgService", new ComponentConfigAdapter());
        injectEventDispatcher(a, bed.events);
        a.activate(null);
        a.configure(model, 1500, AdmissionPlanner.Scope.SHARED_SWITCH, 1000);
        return a;
    }

    @Test
    public void defaultScopeHoldsWhateverOrderTheSwitchServesItsInputsIn() {
        // FIFO's bound is not a bound for a switch that polls its inputs in turn (OVS userspace):
        // the default must be the bound that is safe for any order.
        assertEquals(AdmissionPlanner.Scope.SHARED_SWITCH_ANY_ORDER, new AdmissionManager().scope());
    }

    @After
    public void tearDown() {
        adm.deactivate();
        bed.stop();
    }

    static FlowKey flow(int srcPod, int dstPod, int sport) {
        return FlowKey.of(FatTreeFabric.hostIp(srcPod, 0, 0), FatTreeFabric.hostIp(dstPod, 0, 0), 17, sport, 5000);
    }

    static GuaranteeRequest request(FlowKey f, long rate, long burst, long deadline) {
        return GuaranteeRequest.forFlow(f, rate, burst, 64, 1500, deadline);
    }

    private static MacAddress mac(int pod) {
        return FatTreeFabric.hostMac(pod, 0, 0);
    }

    @Test
    public void admitsPinsAndMetersAFlow() throws Exception {
        FlowKey f = flow(0, 1, 1000);
        Guarantee g = adm.admit(request(f, 1_000_000, 3000, 10 * MS));
        assertTrue(g.boundNanos() > 0 && g.boundNanos() <= 10 * MS);
        assertEquals(5, g.hops().size()); // edge, aggregation, core, aggregation, edge
        assertEquals(g.pathIndex(), bed.routes.placements().get(f).pathIndex());
        assertEquals(Map.of(g.id(), g.boundNanos()), adm.currentBounds());
        // Meter at the source's edge, rounded down to whole kbit: 8000 kbit/s, 24 kbit.
        assertEquals(Guarantee.Policing.METER, g.policing());
        MeterRequest req = meters.submitted.get(0);
        DeviceId edge = FatTreeFabric.edgeId(0, 0);
        assertEquals(edge, req.deviceId());
        Band band = req.bands().iterator().next();
        assertEquals(8000, band.rate());
        assertEquals(24, (long) band.burst());
        // The metered copy of the ingress rule sits one priority above routing's per-flow rule.
        FlowRule metered = meteredRule(edge).orElseThrow();
        assertEquals(32001, metered.priority());
        assertEquals(g.meterId().orElseThrow(), metered.treatment().meters().iterator().next().meterId());
        assertEquals(List.of(g), adm.guarantees());
        assertEquals(GuaranteeEvent.Type.GUARANTEE_ADMITTED, events.get(0).type());
        assertEquals(1, adm.counters().admitted());
    }

    private Optional<FlowRule> meteredRule(DeviceId d) {
        return bed.flowRules.rules(d).stream()
                .filter(r -> !r.treatment().meters().isEmpty())
                .findFirst();
    }

    @Test
    public void switchWithoutMetersFallsBackToSenderShaping() throws Exception {
        meters.withoutMeters.add(FatTreeFabric.edgeId(0, 0));
        Guarantee g = adm.admit(request(flow(0, 1, 1000), 1_000_000, 3000, 10 * MS));
        assertEquals(Guarantee.Policing.SENDER_SHAPED, g.policing());
        assertTrue(meteredRule(FatTreeFabric.edgeId(0, 0)).isEmpty());
        assertEquals(g, adm.guarantee(g.id()).orElseThrow());
    }

    @Test
    public void hostPairGuaranteeUsesTheDefaultPath() throws Exception {
        Guarantee g = adm.admit(GuaranteeRequest.forHostPair(mac(0), mac(2), 1_000_000, 3000, 64, 1500,
                10 * MS));
        ShadowPath chosen = bed.routes.chosenPath(mac(0), mac(2)).orElseThrow();
        assertEquals(chosen.index(), g.pathIndex());
        assertEquals(chosen.hops().stream().map(PathHop::device).collect(Collectors.toList()),
                g.hops().stream().map(h -> h.device()).collect(Collectors.toList()));
        assertTrue(bed.routes.placements().isEmpty());
        assertEquals(31001, meteredRule(FatTreeFabric.edgeId(0, 0)).orElseThrow().priority());
    }

    @Test
    public void badRequestsChangeNothing() throws Exception {
        Guarantee kept = adm.admit(request(flow(0, 1, 1000), 1_000_000, 3000, 10 * MS));
        int rules = bed.flowRules.getFlowRuleCount();
        FlowKey unknown = FlowKey.of(IpAddress.valueOf("192.0.2.1"), FatTreeFabric.hostIp(1, 0, 0), 17, 1, 2);
        expectRejected(request(unknown, 1_000_000, 3000, 10 * MS), AdmissionRejectedException.Reason.BAD_REQUEST,
                "unknown host 192.0.2.1");
        // Five hops of 50 us and 1.2 us (1500 B at 10 Gb/s): 256 us fixed.
        expectRejected(request(flow(0, 1, 1001), 1_000_000, 15_000, 255_999),
                AdmissionRejectedException.Reason.BAD_REQUEST, "below the fixed latency 256000 ns");
        expectRejected(request(flow(0, 1, 1000), 1_000_000, 3000, 10 * MS),
                AdmissionRejectedException.Reason.BAD_REQUEST, "already guaranteed as " + kept.id());
        expectRejected(GuaranteeRequest.forHostPair(mac(0), MacAddress.valueOf("02:00:00:00:99:99"), 1000, 1500,
                64, 1500, 10 * MS), AdmissionRejectedException.Reason.BAD_REQUEST, "unknown host");
        assertEquals(List.of(kept), adm.guarantees());
        assertEquals(1, bed.routes.placements().size());
        assertEquals(rules, bed.flowRules.getFlowRuleCount());
        assertEquals(4, adm.counters().rejectedBadRequest());
    }

    private void expectRejected(GuaranteeRequest r, AdmissionRejectedException.Reason reason, String text) {
        try {
            adm.admit(r);
            fail("admitted " + r);
        } catch (AdmissionRejectedException e) {
            assertEquals(e.getMessage(), reason, e.reason());
            assertTrue(e.getMessage(), e.getMessage().contains(text));
        }
    }

    @Test
    public void fillsUpThenRejectsWithTheHopAndBoundAndKeepsEveryDeadline() throws Exception {
        List<Guarantee> in = new ArrayList<>();
        AdmissionRejectedException rejected = null;
        for (int i = 0; i < 100 && rejected == null; i++) {
            try {
                in.add(adm.admit(request(flow(0, 1, 2000 + i), 1_000_000, 3000, 6 * MS)));
            } catch (AdmissionRejectedException e) {
                rejected = e;
            }
        }
        assertTrue("eventually full", rejected != null);
        assertEquals(AdmissionRejectedException.Reason.NO_CAPACITY, rejected.reason());
        assertTrue(rejected.getMessage(), rejected.getMessage().matches(".*(of:|switch ).*"));
        assertTrue(rejected.getMessage(), rejected.getMessage().contains("ns"));
        // Flows spread over the k/2 * k/2 = 4 core paths before the pod's uplinks fill.
        assertTrue(in.stream().map(Guarantee::pathIndex).distinct().count() > 1);
        Map<String, Long> bounds = adm.currentBounds();
        assertEquals(in.size(), bounds.size());
        for (Guarantee g : in) {
            assertTrue(g.id(), bounds.get(g.id()) <= 6 * MS);
        }
        assertEquals(in.size(), bed.routes.placements().size());
    }

    @Test
    public void removeWithdrawsPinAndMeter() throws Exception {
        FlowKey f = flow(0, 1, 1000);
        Guarantee g = adm.admit(request(f, 1_000_000, 3000, 10 * MS));
        assertTrue(adm.remove(g.id()));
        assertFalse(adm.remove(g.id()));
        assertTrue(adm.guarantees().isEmpty());
        assertFalse(bed.routes.placements().containsKey(f));
        assertEquals(List.of(g.meterId().orElseThrow()), meters.withdrawn);
        assertTrue(meteredRule(FatTreeFabric.edgeId(0, 0)).isEmpty());
        assertEquals(GuaranteeEvent.Type.GUARANTEE_REMOVED, events.get(1).type());
        // The capacity is free again.
        adm.admit(request(f, 1_000_000, 3000, 10 * MS));
    }

    @Test
    public void guardKeepsAdmittedFlowsAndTheirSwitchesSafe() throws Exception {
        FlowKey f = flow(0, 1, 1000);
        // Tight deadline: little room left for extra traffic on its switches.
        Guarantee g = adm.admit(request(f, 1_000_000, 3000, 2_200_000));
        FabricHost a = bed.routes.host(mac(0)).orElseThrow();
        FabricHost b = bed.routes.host(mac(1)).orElseThrow();
        int other = (g.pathIndex() + 1) % bed.routes.paths(a.mac(), b.mac()).size();
        Optional<String> own = adm.veto(f, a.mac(), b.mac(), g.pathIndex(), other, 1_000_000);
        assertTrue(own.orElseThrow(), own.orElseThrow().contains(g.id()));
        // Another flow of another pair from pod 2 to pod 3 never meets g's switches: allowed.
        List<ShadowPath> far = bed.routes.paths(mac(2), mac(3));
        FlowKey x = flow(2, 3, 7);
        assertTrue(adm.veto(x, mac(2), mac(3), far.get(0).index(), far.get(1).index(), 5_000_000).isEmpty());
        // A heavy flow of pod 2 -> pod 1 moved onto g's core: vetoed; onto another core: allowed.
        List<ShadowPath> toB = bed.routes.paths(mac(2), mac(1));
        DeviceId gCore = g.hops().get(2).device();
        ShadowPath via = toB.stream().filter(p -> p.hops().get(2).device().equals(gCore)).findFirst().orElseThrow();
        ShadowPath away = toB.stream().filter(p -> !p.hops().get(2).device().equals(gCore)
                && !p.hops().get(3).device().equals(g.hops().get(3).device())).findFirst().orElseThrow();
        FlowKey y = flow(2, 1, 9);
        Optional<String> v = adm.veto(y, mac(2), mac(1), away.index(), via.index(), 8_000_000);
        assertTrue("vetoed", v.isPresent());
        assertTrue(v.get(), v.get().contains("admitted flow " + g.id()));
        assertTrue(adm.veto(y, mac(2), mac(1), via.index(), away.index(), 8_000_000).isEmpty());
        assertEquals(2, adm.counters().movesVetoed());
    }

    @Test
    public void switchModelFileFromTheBenchmarkSetsTheModel() throws Exception {
        java.nio.file.Path f = java.nio.file.Files.createTempFile("switch-model", ".json");
        try {
            // 1.5 MB/s: one 1 MB/s flow fits, a second does not.
            java.nio.file.Files.writeString(f, "{\"serviceRateBytesPerSec\": 1500000, \"serviceLatencyMicros\": 50,"
                    + " \"perPacketOverheadBytes\": 0, \"margin\": 0.2}");
            java.util.Hashtable<String, Object> props = new java.util.Hashtable<>();
            props.put("switchModelFile", f.toString());
            adm.modified(new org.onlab.osgi.ComponentContextAdapter() {
                @Override
                @SuppressWarnings("rawtypes")
                public java.util.Dictionary getProperties() {
                    return props;
                }
            });
            adm.admit(request(flow(0, 1, 1), 1_000_000, 3000, 100 * MS));
            expectRejected(request(flow(0, 1, 2), 1_000_000, 3000, 100 * MS),
                    AdmissionRejectedException.Reason.NO_CAPACITY, "over capacity");
            // A file that is not a model leaves the model in force.
            java.nio.file.Files.writeString(f, "{\"serviceRateBytesPerSec\": -3}");
            adm.modified(new org.onlab.osgi.ComponentContextAdapter() {
                @Override
                @SuppressWarnings("rawtypes")
                public java.util.Dictionary getProperties() {
                    return props;
                }
            });
            expectRejected(request(flow(0, 1, 3), 1_000_000, 3000, 100 * MS),
                    AdmissionRejectedException.Reason.NO_CAPACITY, "over capacity");
        } finally {
            java.nio.file.Files.deleteIfExists(f);
        }
    }

    /**
     * Two admission components on one shared store stand for two cluster nodes: each counts the
     * guarantees the other admitted, and a removal on one frees the capacity on the other.
     */
    @Test
    public void nodesShareGuaranteesThroughTheStore() throws Exception {
        SharedTestStorage shared = new SharedTestStorage();
        AdmissionManager nodeA = manager(bed, shared, new RecordingMeterService(), MODEL);
        AdmissionManager nodeB = manager(bed, shared, new RecordingMeterService(), MODEL);
        try {
            Guarantee g = nodeA.admit(request(flow(0, 1, 1), 1_000_000, 3000, 10 * MS));
            assertEquals(List.of(g), nodeB.guarantees());
            assertEquals(nodeA.currentBounds(), nodeB.currentBounds());
            // On B, a flow that fits alone but would push A's guarantee past its deadline.
            long tight = g.boundNanos();
            Guarantee t = nodeA.admit(request(flow(0, 1, 2), 1_000_000, 3000, 10 * MS));
            assertTrue(nodeA.remove(t.id()));
            assertTrue(nodeA.remove(g.id()));
            g = nodeA.admit(request(flow(0, 1, 1), 1_000_000, 3000, tight));
            try {
                nodeB.admit(request(flow(0, 1, 3), 1_000_000, 3000, 10 * MS));
                fail("node B broke node A's guarantee");
            } catch (AdmissionRejectedException e) {
                assertEquals(AdmissionRejectedException.Reason.NO_CAPACITY, e.getMessage().contains(g.id())
                        ? e.reason() : null);
            }
            // Ids are unique across nodes; B removing A's guarantee frees the capacity for A.
            assertTrue(meteredRule(FatTreeFabric.edgeId(0, 0)).isPresent());
            assertTrue(nodeB.remove(g.id()));
            assertTrue(nodeA.guarantees().isEmpty());
            assertTrue("B removed A's metered rule", meteredRule(FatTreeFabric.edgeId(0, 0)).isEmpty());
            Guarantee again = nodeA.admit(request(flow(0, 1, 3), 1_000_000, 3000, 10 * MS));
            assertFalse(again.id().equals(g.id()));
        } finally {
            FabricTestBed.call(nodeA, "deactivate");
            FabricTestBed.call(nodeB, "deactivate");
        }
    }
}
