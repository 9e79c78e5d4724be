package org.planck.app.te;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Test;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;
import org.planck.api.admission.Guarantee;
import org.planck.api.admission.GuaranteeRequest;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.te.RerouteRejectedException;
import org.planck.api.telemetry.CongestionState;
import org.planck.api.telemetry.FlowRateEvent;
import org.planck.api.telemetry.PortCongestionNotice;
import org.planck.api.telemetry.RateEstimator;
import org.planck.app.FabricTestBed;
import org.planck.app.admission.AdmissionManager;
import org.planck.app.admission.AdmissionManagerTest;
import org.planck.app.admission.RecordingMeterService;
import org.planck.app.admission.algo.SwitchModel;

import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.planck.app.TestConfigs.config;

/**
 * Traffic engineering with admission control as its move guard: admitted flows never move, and
 * no flow moves onto switches where it would push an admitted flow past its deadline. Each
 * case has a control run where the same move happens without the guarantee.
 */
public class TeMoveGuardTest {
    /** 300 MB/s: 24% of a 10 Gb/s link. */
    private static final double RATE = 300e6;
    /** 1 GB/s shared service, 50 us latency. */
    private static final SwitchModel MODEL = new SwitchModel(1_000_000_000, 50_000, 0, 100_000_000, 0, 0);
    private TeLoopBed bed;
    private AdmissionManager adm;
    private FabricHost src;
    private FabricHost dst;

    @After
    public void tearDown() {
        if (adm != null) {
            FabricTestBed.call(adm, "deactivate");
        }
        if (bed != null) {
            bed.stop();
        }
    }

    private void start() {
        ObjectNode c = config().k(4).threshold(50).json();
        c.put("rerouteDampingMs", 0);
        c.put("elephantThresholdPct", 0);
        bed = new TeLoopBed(c, "PLANCK");
        adm = AdmissionManagerTest.manager(bed.fabric, new RecordingMeterService(), MODEL);
        FabricTestBed.set(bed.te, "moveGuard", adm);
        src = bed.host(0, 0, 0);
        dst = bed.host(2, 1, 1);
    }

    private FlowKey flow(int i) {
        return FlowKey.of(src.ips().iterator().next(), dst.ips().iterator().next(), 6, 40000 + i, 5201);
    }

    private ShadowPath path(int index) {
        return bed.fabric.routes.paths(src.mac(), dst.mac()).stream().filter(p -> p.index() == index)
                .findFirst().orElseThrow();
    }

    private FlowRateEvent rate(FlowKey f, ConnectPoint at, double bytesPerSec) {
        long now = System.currentTimeMillis() * 1000;
        return new FlowRateEvent(f, at, dst.mac(), bytesPerSec, 20, now - 1000, now, RateEstimator.TCP_SEQ);
    }

    private void congest(ConnectPoint port) {
        long now = System.currentTimeMillis() * 1000;
        bed.ingest(List.of(new PortCongestionNotice(port, CongestionState.CONGESTED, 0.9, 0.9e10, 1e10,
                now - 200, now)));
    }

    private Guarantee admit(FlowKey f, long deadlineNs) throws Exception {
        return adm.admit(GuaranteeRequest.forFlow(f, 1_000_000, 3000, 64, 1500, deadlineNs));
    }

    private int placed(FlowKey f) {
        return bed.fabric.routes.placements().get(f).pathIndex();
    }

    @Test
    public void anAdmittedFlowStaysOnItsPath() throws Exception {
        start();
        FlowKey a = flow(1);
        Guarantee g = admit(a, 10_000_000);
        ConnectPoint up = path(g.pathIndex()).egressPorts().get(0);
        bed.ingest(List.of(rate(a, up, RATE)));
        congest(up);
        assertEquals(g.pathIndex(), placed(a));
        assertEquals(0, bed.reroutes.rerouteCount());
        assertTrue(adm.counters().movesVetoed() > 0);
        try {
            bed.te.reroute(a, (g.pathIndex() + 1) % 4);
            fail("moved an admitted flow by hand");
        } catch (RerouteRejectedException e) {
            assertEquals(RerouteRejectedException.Reason.GUARANTEE_AT_RISK, e.reason());
            assertTrue(e.getMessage(), e.getMessage().contains(g.id()));
        }
        assertEquals(g.pathIndex(), placed(a));
    }

    @Test
    public void controlTheSameFlowMovesWithoutAGuarantee() {
        start();
        FlowKey a = flow(1);
        bed.fabric.routes.placeFlow(a, src.mac(), dst.mac(), 0);
        ConnectPoint up = path(0).egressPorts().get(0);
        bed.ingest(List.of(rate(a, up, RATE)));
        congest(up);
        assertNotEquals(0, placed(a));
        assertEquals(1, bed.reroutes.rerouteCount());
    }

    /** Admits g, then puts best-effort flow b on a path through the other aggregation of the source pod. */
    private FlowKey guaranteeAndNeighbour(long slackNs) throws Exception {
        FlowKey a = flow(1);
        // Learn the bound on the path admission picks, then ask again with that bound plus slack.
        Guarantee probe = admit(a, 100_000_000);
        adm.remove(probe.id());
        Guarantee g = admit(a, probe.boundNanos() + slackNs);
        assertEquals(probe.pathIndex(), g.pathIndex());
        ShadowPath gp = path(g.pathIndex());
        ShadowPath other = bed.fabric.routes.paths(src.mac(), dst.mac()).stream()
                .filter(p -> !p.hops().get(1).device().equals(gp.hops().get(1).device())).findFirst().orElseThrow();
        FlowKey b = flow(2);
        bed.fabric.routes.placeFlow(b, src.mac(), dst.mac(), other.index());
        ConnectPoint up = other.egressPorts().get(0);
        bed.ingest(List.of(rate(b, up, RATE)));
        congest(up);
        return b;
    }

    @Test
    public void noMoveOntoSwitchesWhereItBreaksAGuarantee() throws Exception {
        start();
        // 1 us of slack: 300 MB/s more through g's aggregation and core would cost it far more.
        FlowKey b = guaranteeAndNeighbour(1_000);
        ShadowPath before = bed.fabric.routes.paths(src.mac(), dst.mac()).stream()
                .filter(p -> p.index() == placed(b)).findFirst().orElseThrow();
        assertEquals(0, bed.reroutes.rerouteCount());
        assertTrue(adm.counters().movesVetoed() > 0);
        assertEquals(before.index(), placed(b));
        assertTrue(adm.currentBounds().values().stream().allMatch(x -> x > 0));
    }

    @Test
    public void controlTheSameMoveHappensWhenTheGuaranteeHasRoom() throws Exception {
        start();
        // 10 ms of slack: b's burst over a 1 GB/s switch costs about 0.3 ms per hop.
        FlowKey b = guaranteeAndNeighbour(10_000_000);
        assertEquals(1, bed.reroutes.rerouteCount());
        assertEquals(bed.reroutes.recent(1).get(0).toPath(), placed(b));
    }
}
