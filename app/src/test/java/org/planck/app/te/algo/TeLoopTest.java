package org.planck.app.te.algo;

import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.FlowKey;
import org.planck.api.FlowPlacements;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowTree;
import org.planck.api.te.PlanckRerouteEvent;
import org.planck.api.te.Reroute;
import org.planck.api.te.TeMode;
import org.planck.api.telemetry.FlowRecord;
import org.planck.api.telemetry.FlowStateService;
import org.planck.api.telemetry.PortLoad;
import org.planck.api.telemetry.RateEstimator;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

/**
 * The TE loop's policy, driven directly: which triggers move flows in which mode, the marks that
 * notices leave, and damping. Two switches joined by three parallel 1 Gb/s links (125 MB/s); each
 * link is one shadow path, so every utilisation is known.
 */
public class TeLoopTest {
    private static final long GBPS = 1_000_000_000L;
    private static final double MB = 1_000_000;
    private static final long MS = 1_000_000L;
    private static final DeviceId A = DeviceId.deviceId("of:00000000000000aa");
    private static final DeviceId B = DeviceId.deviceId("of:00000000000000bb");
    private static final MacAddress S = MacAddress.valueOf("00:00:00:00:0a:01");
    private static final MacAddress D = MacAddress.valueOf("00:00:00:00:0b:01");

    private RoutingPlan plan;
    private final Placements placements = new Placements();
    private final Rates rates = new Rates();
    private final List<Reroute> reported = new ArrayList<>();
    private TeLoop loop;
    private ConnectPoint defaultLink;
    /** The loop's clock, ns. */
    private long now;

    @Before
    public void setUp() {
        setUp(10 * GBPS);
    }

    /** The fabric with D's host link at {@code dHostBps}. */
    private void setUp(long dHostBps) {
        reported.clear();
        placements.placed.clear();
        FabricGraph.Builder b = FabricGraph.builder().addSwitch(A).addSwitch(B);
        for (int i = 0; i < 3; i++) {
            b.addBidirectionalLink(FabricLink.of(A, PortNumber.portNumber(10 + i), B, PortNumber.portNumber(10 + i),
                                                 GBPS));
        }
        b.addHost(FabricHost.of(S, List.of(IpAddress.valueOf("10.0.0.1")),
                                new ConnectPoint(A, PortNumber.portNumber(1)), 10 * GBPS));
        b.addHost(FabricHost.of(D, List.of(IpAddress.valueOf("10.0.1.1")),
                                new ConnectPoint(B, PortNumber.portNumber(1)), dHostBps));
        plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 3).plan(b.build());
        placements.plan = plan;
        defaultLink = linkOf(plan.defaultPathIndex(S, D).orElseThrow());
        loop = new TeLoop(placements, rates, (type, r) -> {
            if (type == PlanckRerouteEvent.Type.FLOW_REROUTED) {
                reported.add(r);
            }
        }, us -> { });
        loop.configure(0.8, 100, 0);
        loop.useClock(() -> now);
        // Two 70 MB/s flows on the host pair's default link: 112 % of it.
        rates.put(flow(1), 70 * MB);
        rates.put(flow(2), 70 * MB);
        loop.sync();
        assertEquals(140 * MB / 125e6, loop.utilisation(defaultLink), 1e-9);
    }

    private static FlowKey flow(int sport) {
        return FlowKey.of(IpAddress.valueOf("10.0.0.1"), IpAddress.valueOf("10.0.1.1"), 6, sport, 80);
    }

    private ConnectPoint linkOf(int pathIndex) {
        for (ShadowTree t : plan.trees(D)) {
            if (t.index() == pathIndex) {
                return new ConnectPoint(A, t.nextLinks().get(A).srcPort());
            }
        }
        throw new AssertionError("no path " + pathIndex);
    }

    private Map<ConnectPoint, PortLoad> polled(ConnectPoint port, double bytesPerSec) {
        return Map.of(port, new PortLoad(port, (long) (bytesPerSec * 8), GBPS, 0, false));
    }

    @Test
    public void staticModeMovesNothing() {
        loop.setMode(TeMode.STATIC);
        assertTrue(loop.onNotice(defaultLink, true, OptionalDouble.of(1.0), true, 0).isEmpty());
        assertTrue(loop.onPortLoads(polled(defaultLink, 125 * MB), true, 0).isEmpty());
        assertTrue(loop.relieveOverloaded(List.of(defaultLink), 0).isEmpty());
        assertTrue(placements.placed.isEmpty());
        assertTrue(reported.isEmpty());
        assertFalse("a notice ignored by the mode leaves no mark", loop.isCongested(defaultLink));
    }

    @Test
    public void planckModeActsOnANoticeAndIgnoresPolledLoads() {
        loop.setMode(TeMode.PLANCK);
        assertTrue(loop.onPortLoads(polled(defaultLink, 125 * MB), true, 0).isEmpty());
        List<Reroute> moves = loop.onNotice(defaultLink, true, OptionalDouble.of(0.95), true, 0);
        assertEquals(1, moves.size());
        FlowKey moved = moves.get(0).flow();
        assertEquals(Optional.of(defaultLink), moves.get(0).congestedPort());
        int to = placements.placed.get(moved).pathIndex();
        assertNotEquals(defaultLink, linkOf(to));
        assertEquals(moves, reported);
        assertEquals(70 * MB / 125e6, loop.utilisation(defaultLink), 1e-9);
    }

    @Test
    public void planckModeRelievesWhatTheLoadViewShowsOverThreshold() {
        loop.setMode(TeMode.PLANCK);
        // No notice: the view alone (112 %) is enough once the mode is PLANCK.
        assertEquals(1, loop.relieveOverloaded(List.of(), 0).size());
        assertTrue("now under threshold everywhere", loop.relieveOverloaded(List.of(), 1).isEmpty());
    }

    @Test
    public void aHostPortThatNoPathAvoidsIsLeftAloneByTheLoadViewCheck() {
        // D's own link at 1 Gb/s: the two flows fill it to 112 % whichever path they take.
        setUp(GBPS);
        ConnectPoint hostPort = new ConnectPoint(B, PortNumber.portNumber(1));
        assertEquals(140 * MB / 125e6, loop.utilisation(hostPort), 1e-9);
        loop.setMode(TeMode.PLANCK);
        List<Reroute> moves = loop.relieveOverloaded(List.of(), 0);
        assertEquals("the shared link is relieved", 1, moves.size());
        assertEquals(Optional.of(defaultLink), moves.get(0).congestedPort());
        assertEquals("the host's port is looked at once and left alone", 1, loop.pinnedPortsSkipped());
        assertTrue(loop.relieveOverloaded(List.of(hostPort), 1).isEmpty());
        assertEquals(2, loop.pinnedPortsSkipped());
        assertEquals(140 * MB / 125e6, loop.utilisation(hostPort), 1e-9);
    }

    @Test
    public void theLoopLooksUpTheFlowsOfABatchWithoutCopyingEveryPlacement() {
        loop.setMode(TeMode.PLANCK);
        placements.copies = 0;
        rates.put(flow(3), 10 * MB);
        loop.resync(List.of(flow(1), flow(2), flow(3)));
        assertEquals(1, loop.relieveOverloaded(List.of(), 0).size());
        assertEquals(0, placements.copies);
    }

    @Test
    public void pollModeActsOnPolledLoadsOnly() {
        loop.setMode(TeMode.POLL);
        assertTrue(loop.onNotice(defaultLink, true, OptionalDouble.of(0.95), true, 0).isEmpty());
        assertTrue(loop.relieveOverloaded(List.of(defaultLink), 0).isEmpty());
        List<Reroute> moves = loop.onPortLoads(polled(defaultLink, 120 * MB), true, 0);
        assertEquals(1, moves.size());
        assertEquals(1, placements.placed.size());
    }

    @Test
    public void aFollowerMarksButDoesNotMove() {
        loop.setMode(TeMode.PLANCK);
        assertTrue(loop.onNotice(defaultLink, true, OptionalDouble.of(0.95), false, 0).isEmpty());
        assertTrue(loop.isCongested(defaultLink));
        assertTrue(placements.placed.isEmpty());
    }

    @Test
    public void aClearedNoticeIsTakenInEveryMode() {
        loop.setMode(TeMode.PLANCK);
        loop.onNotice(defaultLink, true, OptionalDouble.of(0.95), false, 0);
        loop.setMode(TeMode.STATIC);
        loop.onNotice(defaultLink, false, OptionalDouble.empty(), true, 0);
        assertFalse(loop.isCongested(defaultLink));
    }

    /**
     * Moves one of the two flows at time 0, then puts a third 60 MB/s flow beside it on its new
     * link (130 MB/s: 104 %), placed directly or by a manual reroute at {@code thirdMovedAt} (which
     * damps it), and reports that link congested at {@code nanos}.
     *
     * @return the flow moved first, and the flow moved by the second notice
     */
    private FlowKey[] secondNoticeAt(long nanos, OptionalLong thirdMovedAt) throws Exception {
        loop.setMode(TeMode.PLANCK);
        List<Reroute> first = loop.onNotice(defaultLink, true, OptionalDouble.empty(), true, 0);
        assertEquals(1, first.size());
        FlowKey moved = first.get(0).flow();
        int newIndex = placements.placed.get(moved).pathIndex();
        rates.put(flow(3), 60 * MB);
        if (thirdMovedAt.isPresent()) {
            loop.resync(List.of(flow(3)));
            now = thirdMovedAt.getAsLong();
            loop.reroute(flow(3), newIndex, now);
        } else {
            placements.placed.put(flow(3), FlowPlacement.of(S, D, newIndex, 0));
            loop.resync(List.of(flow(3)));
        }
        assertEquals(130 * MB / 125e6, loop.utilisation(linkOf(newIndex)), 1e-9);
        now = nanos;
        List<Reroute> second = loop.onNotice(linkOf(newIndex), true, OptionalDouble.empty(), true, nanos);
        assertEquals(1, second.size());
        return new FlowKey[] {moved, second.get(0).flow()};
    }

    @Test
    public void aMovedFlowIsDampedSoTheSmallerOneMoves() throws Exception {
        FlowKey[] f = secondNoticeAt(1 * MS, OptionalLong.empty());
        assertEquals("the 70 MB/s flow is damped 1 ms after its move", flow(3), f[1]);
    }

    @Test
    public void afterItsDampingAFlowMovesAgain() throws Exception {
        // The third flow was moved 50 ms before the notice and is damped; the first one's 100 ms
        // are over, so it is the one that moves.
        FlowKey[] f = secondNoticeAt(150 * MS, OptionalLong.of(100 * MS));
        assertEquals("the first flow is free after its 100 ms damping", f[0], f[1]);
    }

    @Test
    public void manualReroutesWorkInStaticMode() throws Exception {
        loop.setMode(TeMode.STATIC);
        int other = plan.trees(D).stream().map(ShadowTree::index)
                .filter(i -> !linkOf(i).equals(defaultLink)).findFirst().orElseThrow();
        Reroute r = loop.reroute(flow(1), other, 0);
        assertEquals(other, r.toPath());
        assertEquals(other, placements.placed.get(flow(1)).pathIndex());
    }

    /** Flow placements as a map over one plan. */
    private static final class Placements implements FlowPlacements {
        RoutingPlan plan;
        final Map<FlowKey, FlowPlacement> placed = new HashMap<>();

        @Override
        public Optional<RoutingPlan> plan() {
            return Optional.ofNullable(plan);
        }

        @Override
        public void placeFlow(FlowKey flow, MacAddress src, MacAddress dst, int pathIndex) {
            placed.put(flow, FlowPlacement.of(src, dst, pathIndex, 0));
        }

        @Override
        public boolean removeFlow(FlowKey flow) {
            return placed.remove(flow) != null;
        }

        @Override
        public Map<FlowKey, FlowPlacement> placements() {
            copies++;
            return new HashMap<>(placed);
        }

        @Override
        public Optional<FlowPlacement> placement(FlowKey flow) {
            return Optional.ofNullable(placed.get(flow));
        }

        /** Calls of {@link #placements()}. */
        int copies;
    }

    /** Live flow rates, one record per flow at its source edge port. */
    private static final class Rates implements FlowStateService {
        private final Map<FlowKey, FlowRecord> records = new HashMap<>();

        void put(FlowKey f, double bytesPerSec) {
            records.put(f, new FlowRecord(f, new ConnectPoint(A, PortNumber.portNumber(1)), D, bytesPerSec,
                                          RateEstimator.TCP_SEQ, 10, 0, "test", 0));
        }

        @Override
        public Collection<FlowRecord> flows() {
            return new ArrayList<>(records.values());
        }

        @Override
        public Collection<FlowRecord> flows(FlowKey flow) {
            FlowRecord r = records.get(flow);
            return r == null ? List.of() : List.of(r);
        }

        @Override
        public Collection<FlowRecord> flowsOn(ConnectPoint port) {
            return records.values().stream().filter(r -> r.port().equals(port)).collect(Collectors.toList());
        }

        @Override
        public int flowRecordCount() {
            return records.size();
        }
    }
}
