package org.planck.app.inband.algo;

import com.google.common.collect.ImmutableList;
import org.junit.Test;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.inband.ConformanceStatus;
import org.planck.api.inband.FlowConformance;
import org.planck.api.telemetry.PintHopLatency;
import org.planck.api.telemetry.PintPathEvent;
import org.planck.app.inband.FatTreeRoutes;

import java.util.ArrayList;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * Path conformance against the planner's routing of a k=4 fat tree: conforming flows, moves
 * confirmed only by a trace of the new path received after the move, a moved flow traced on its
 * old path pending then non-conforming, mismatches reported once, bounds and expiry.
 */
public class PathConformanceTest {
    private static final long TIMEOUT = 1000;
    private final FatTreeRoutes routes = new FatTreeRoutes();
    private final FlowKey flow = FatTreeRoutes.flow(new int[]{0, 0, 0}, new int[]{2, 1, 1}, 10001);
    private final PathConformance table = new PathConformance(100, 60_000, TIMEOUT);
    private final List<PathConformance.Transition> out = new ArrayList<>();

    private PlannedPaths plan() {
        return PlannedPaths.snapshot(routes);
    }

    private void trace(FlowKey f, List<DeviceId> path, long packets, long now) {
        table.onPaths(ImmutableList.of(new PintPathEvent(f, path, packets, PintPathEvent.Cause.NEW_KEY, now * 1000)),
                now, plan(), out);
    }

    private FlowConformance verdict(long now) {
        return table.evaluate(flow, now, plan(), out).orElseThrow();
    }

    @Test
    public void plannedPathsFollowPlacementsAndDefaults() {
        int def = routes.defaultIndex(flow);
        assertEquals(new PlannedPath(def, routes.pathOf(flow, def)), plan().plannedPath(flow).orElseThrow());
        assertEquals(5, routes.pathOf(flow, def).size());
        int other = routes.otherIndex(flow);
        routes.place(flow, other);
        assertEquals(new PlannedPath(other, routes.pathOf(flow, other)), plan().plannedPath(flow).orElseThrow());
        FlowKey sameEdge = FatTreeRoutes.flow(new int[]{0, 0, 0}, new int[]{0, 0, 1}, 1);
        assertEquals(1, plan().plannedPath(sameEdge).orElseThrow().devices().size());
        FlowKey unknown = FlowKey.of(org.onlab.packet.IpAddress.valueOf("192.0.2.1"), flow.dst(), 6, 1, 2);
        assertFalse(plan().plannedPath(unknown).isPresent());
    }

    @Test
    public void tracedOnItsPlannedPathConforms() {
        trace(flow, routes.pathOf(flow, routes.defaultIndex(flow)), 17, 100);
        FlowConformance v = verdict(200);
        assertEquals(ConformanceStatus.CONFORMING, v.status());
        assertEquals(17, v.tracePackets());
        assertEquals(100, v.statusSinceMillis());
        assertTrue(out.isEmpty());
    }

    @Test
    public void unmovedFlowOnAnotherPathIsNonConformingAndReportedOnce() {
        trace(flow, routes.pathOf(flow, routes.otherIndex(flow)), 12, 100);
        assertEquals(ConformanceStatus.NON_CONFORMING, verdict(100).status());
        verdict(300);
        assertEquals(1, out.size());
        assertEquals(ConformanceStatus.NON_CONFORMING, out.get(0).verdict().status());
        assertEquals(1, table.counters().nonConforming());
    }

    @Test
    public void moveIsConfirmedByATraceOfTheNewPathAfterTheMove() {
        int def = routes.defaultIndex(flow);
        int other = routes.otherIndex(flow);
        trace(flow, routes.pathOf(flow, def), 15, 100);
        routes.place(flow, other);
        table.onMove(flow, def, other, 500);
        assertEquals(ConformanceStatus.MOVE_PENDING, verdict(600).status());
        table.onPaths(ImmutableList.of(new PintPathEvent(flow, routes.pathOf(flow, other), 9,
                PintPathEvent.Cause.PATH_CHANGE, 0)), 540, plan(), out);
        FlowConformance v = verdict(700);
        assertEquals(ConformanceStatus.MOVED_CONFIRMED, v.status());
        assertEquals(40, v.confirmationMillis());
        assertEquals(9, v.tracePackets());
        assertEquals(2, v.traces());
        assertEquals(other, v.plannedIndex());
        assertEquals(1, out.size());
        assertEquals(1, table.counters().confirmed());
        // Still confirmed long after: the collector does not resend an unchanged path.
        assertEquals(ConformanceStatus.MOVED_CONFIRMED, verdict(100_000).status());
        assertEquals(1, table.counters().confirmed());
    }

    @Test
    public void movedFlowTracedOnItsOldPathIsPendingThenNonConforming() {
        int def = routes.defaultIndex(flow);
        int other = routes.otherIndex(flow);
        trace(flow, routes.pathOf(flow, def), 15, 100);
        routes.place(flow, other);
        table.onMove(flow, def, other, 500);
        // A late trace of the old path (packets in flight before the move) does not confirm it.
        trace(flow, routes.pathOf(flow, def), 20, 520);
        FlowConformance pending = verdict(1499);
        assertEquals(ConformanceStatus.MOVE_PENDING, pending.status());
        assertEquals(FlowConformance.NONE, pending.confirmationMillis());
        assertTrue(out.isEmpty());
        FlowConformance late = verdict(1500);
        assertEquals(ConformanceStatus.NON_CONFORMING, late.status());
        assertEquals(1500, late.statusSinceMillis());
        assertEquals(routes.pathOf(flow, def), late.tracedPath());
        assertEquals(routes.pathOf(flow, other), late.plannedPath());
        assertEquals(1, out.size());
        assertEquals(ConformanceStatus.MOVE_PENDING, verdict(1499 - 1000 + 500).status());
    }

    @Test
    public void movedButNeverTracedIsUntracedNotNonConforming() {
        int other = routes.otherIndex(flow);
        routes.place(flow, other);
        table.onMove(flow, routes.defaultIndex(flow), other, 500);
        assertEquals(ConformanceStatus.MOVE_PENDING, verdict(600).status());
        assertEquals(ConformanceStatus.UNTRACED, verdict(1600).status());
        assertTrue(out.isEmpty());
    }

    @Test
    public void aSecondMoveNeedsItsOwnConfirmation() {
        int def = routes.defaultIndex(flow);
        int other = routes.otherIndex(flow);
        routes.place(flow, other);
        table.onMove(flow, def, other, 500);
        trace(flow, routes.pathOf(flow, other), 8, 550);
        assertEquals(ConformanceStatus.MOVED_CONFIRMED, verdict(560).status());
        routes.place(flow, def);
        table.onMove(flow, other, def, 900);
        assertEquals(ConformanceStatus.MOVE_PENDING, verdict(950).status());
        trace(flow, routes.pathOf(flow, def), 7, 990);
        FlowConformance v = verdict(1000);
        assertEquals(ConformanceStatus.MOVED_CONFIRMED, v.status());
        assertEquals(90, v.confirmationMillis());
        assertEquals(2, v.moves());
        assertEquals(2, table.counters().confirmed());
    }

    @Test
    public void withoutAPlanFlowsAreUnplanned() {
        trace(flow, routes.pathOf(flow, 0), 3, 10);
        assertEquals(ConformanceStatus.UNPLANNED,
                table.evaluate(flow, 20, f -> java.util.Optional.empty(), out).orElseThrow().status());
    }

    @Test
    public void tableIsBoundedAndIdleFlowsExpire() {
        PathConformance small = new PathConformance(2, 1000, TIMEOUT);
        List<DeviceId> p = routes.pathOf(flow, 0);
        for (int i = 0; i < 3; i++) {
            FlowKey f = FatTreeRoutes.flow(new int[]{0, 0, 0}, new int[]{2, 1, 1}, 20000 + i);
            small.onPaths(ImmutableList.of(new PintPathEvent(f, p, 5, PintPathEvent.Cause.NEW_KEY, 0)), i * 400L,
                    plan(), out);
        }
        assertEquals(2, small.counters().flows());
        assertEquals(1, small.counters().refused());
        assertFalse(small.onMove(FatTreeRoutes.flow(new int[]{0, 0, 0}, new int[]{2, 1, 1}, 9), 0, 1, 900));
        assertEquals(1, small.expire(1000));
        assertEquals(1, small.counters().flows());
        assertEquals(1, small.counters().expired());
        assertEquals(1, small.expire(1400));
        assertEquals(0, small.counters().flows());
    }

    @Test
    public void keepsTheLatestLatencyPerHop() {
        table.onLatencies(ImmutableList.of(new PintHopLatency(flow, 2, null, 64, 100, 200, 1),
                new PintHopLatency(flow, 1, null, 64, 50, 90, 1),
                new PintHopLatency(flow, 2, null, 128, 110, 210, 2)), 10);
        FlowConformance v = verdict(20);
        assertEquals(2, v.hopLatencies().size());
        assertEquals(1, v.hopLatencies().get(0).hop());
        assertEquals(128, v.hopLatencies().get(1).samples());
        assertEquals(ConformanceStatus.UNTRACED, v.status());
        assertEquals(3, table.counters().latencies());
    }
}
