package org.planck.lab.control;

import org.junit.Test;
import org.planck.api.config.CongestionSignal;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.te.TeMode;
import org.planck.api.telemetry.TelemetryBatchCodec;
import org.planck.app.routing.algo.FatTreeFabric;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;
import org.planck.app.te.algo.TeLoop;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The warm-up runs the real decision path: on stride(8) with hash placement some ports are
 * over threshold and flows move.
 */
public class JitWarmUpTest {
    @Test
    public void decidesMovesOnASyntheticStride() {
        assertTrue(JitWarmUp.run(3) > 0);
    }

    /** The INT leg decodes its signals and marks, then clears, each of the four ports. */
    @Test
    public void theIntLegMarksAndClearsFourPorts() {
        RoutingPlan plan = new ShadowRoutePlanner(
                new InMemoryShadowMacAllocator(), 4)
                .plan(FatTreeFabric.of(4, 1_000_000_000L, 1_000_000_000L).graph());
        LabPlacements placements = new LabPlacements();
        placements.reset(plan);
        TeLoop loop = new TeLoop(placements, new LabFlowState(),
                (type, reroute) -> { }, latency -> { });
        loop.setMode(TeMode.PLANCK);
        IntQueueCongestion ports = new IntQueueCongestion(CongestionSignal.INT, 24, 16);
        assertEquals(8, JitWarmUp.intSignals(new TelemetryBatchCodec(), loop, ports, 0));
        assertEquals(4, ports.congestions());
    }
}
