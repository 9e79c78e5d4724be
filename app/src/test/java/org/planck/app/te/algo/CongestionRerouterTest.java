package org.planck.app.te.algo;

import org.planck.api.Expect;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.FlowMove;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowTree;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;

import java.util.List;
import java.util.OptionalDouble;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

/**
 * Hand-built TE scenarios with known best moves, on two switches joined by three parallel
 * 1 Gb/s links (125 MB/s): each link is exactly one shadow path, so every utilisation is known.
 */
public class CongestionRerouterTest {
    private static final long GBPS = 1_000_000_000L;
    private static final double MB = 1_000_000;
    private static final long MS = 1_000_000L;
    private static final DeviceId A = DeviceId.deviceId("of:00000000000000aa");
    private static final DeviceId B = DeviceId.deviceId("of:00000000000000bb");
    private static final MacAddress S1 = MacAddress.valueOf("00:00:00:00:0a:01");
    private static final MacAddress S2 = MacAddress.valueOf("00:00:00:00:0a:02");
    private static final MacAddress D = MacAddress.valueOf("00:00:00:00:0b:01");

    private RoutingPlan plan;
    private FabricLoad load;
    /** Path index using the link out of A port 10 + i. */
    private final int[] indexOfLink = new int[3];

    private static FabricHost host(MacAddress mac, DeviceId sw, int port, String ip) {
        return host(mac, sw, port, ip, 10 * GBPS);
    }

    private static FabricHost host(MacAddress mac, DeviceId sw, int port, String ip, long bps) {
        return FabricHost.of(mac, List.of(IpAddress.valueOf(ip)), new ConnectPoint(sw, PortNumber.portNumber(port)),
                             bps);
    }

    private static ConnectPoint link(int i) {
        return new ConnectPoint(A, PortNumber.portNumber(10 + i));
    }

    private static FlowKey flow(int sport) {
        return FlowKey.of(IpAddress.valueOf("10.0.0.1"), IpAddress.valueOf("10.0.1.1"), 6, sport, 80);
    }

    @Before
    public void setUp() {
        FabricGraph.Builder b = FabricGraph.builder().addSwitch(A).addSwitch(B);
        for (int i = 0; i < 3; i++) {
            b.addBidirectionalLink(FabricLink.of(A, PortNumber.portNumber(10 + i), B, PortNumber.portNumber(10 + i),
                                                 GBPS));
        }
        b.addHost(host(S1, A, 1, "10.0.0.1")).addHost(host(S2, A, 2, "10.0.0.2")).addHost(host(D, B, 1, "10.0.1.1"));
        plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 3).plan(b.build());
        for (ShadowTree t : plan.trees(D)) {
            indexOfLink[(int) t.nextLinks().get(A).srcPort().toLong() - 10] = t.index();
        }
        load = new FabricLoad(plan);
    }

    private void put(int sport, MacAddress src, int link, double mbps) {
        load.place(flow(sport), FlowPlacement.of(src, D, indexOfLink[link], mbps * MB));
    }

    private int linkOf(int sport) {
        int index = load.placement(flow(sport)).get().pathIndex();
        for (int i = 0; i < 3; i++) {
            if (indexOfLink[i] == index) {
                return i;
            }
        }
        throw new AssertionError();
    }

    @Test
    public void largestFlowGoesToTheLeastLoadedPathThatStaysUnderThreshold() {
        put(1, S1, 0, 70);
        put(2, S1, 0, 40);
        put(3, S2, 1, 40);   // 70 more would make link 1 carry 110 MB/s: 88% > 80%
        put(4, S2, 2, 10);
        assertEquals(110 * MB, load.loadBytesPerSec(link(0)), 1);
        CongestionRerouter te = new CongestionRerouter(load, 0.8, 100 * MS);
        List<FlowMove> moves = te.relieve(link(0), OptionalDouble.empty(), 0);
        assertEquals(1, moves.size());
        assertEquals(flow(1), moves.get(0).flow());
        assertEquals(indexOfLink[2], moves.get(0).toIndex());
        assertEquals(0.64, moves.get(0).maxUtilisationAfter(), 1e-9);
        assertEquals(2, linkOf(1));
        assertEquals(40 * MB, load.loadBytesPerSec(link(0)), 1);
        assertEquals(80 * MB, load.loadBytesPerSec(link(2)), 1);
        // The port is under threshold now: a repeated notice changes nothing.
        assertTrue(te.relieve(link(0), OptionalDouble.empty(), 1).isEmpty());
    }

    @Test
    public void minimisesMaximumUtilisation() {
        put(1, S1, 0, 70);
        put(2, S1, 0, 40);
        put(3, S2, 1, 5);
        put(4, S2, 2, 10);
        List<FlowMove> moves = new CongestionRerouter(load, 0.8, 0).relieve(link(0), OptionalDouble.empty(), 0);
        assertEquals(1, moves.size());
        assertEquals(indexOfLink[1], moves.get(0).toIndex());
        assertEquals(0.6, moves.get(0).maxUtilisationAfter(), 1e-9);
    }

    @Test
    public void movesLargestFirstUntilUnderThresholdSeeingEarlierMoves() {
        put(1, S1, 0, 50);
        put(2, S1, 0, 40);
        put(3, S2, 0, 30);
        // Threshold 50% = 62.5 MB/s. 120 on link 0: moving 50 leaves 70 (still over), moving 40
        // leaves 30. The first goes to link 1 (tie with link 2, lower link index of the tie
        // broken by path index order), the second cannot join it (90 > 62.5) and takes the other.
        CongestionRerouter te = new CongestionRerouter(load, 0.5, 0);
        List<FlowMove> moves = te.relieve(link(0), OptionalDouble.empty(), 0);
        assertEquals(2, moves.size());
        assertEquals(flow(1), moves.get(0).flow());
        assertEquals(flow(2), moves.get(1).flow());
        assertFalse(linkOf(1) == linkOf(2));
        assertEquals(0, linkOf(3));
        assertEquals(30 * MB, load.loadBytesPerSec(link(0)), 1);
        int firstLink = Math.min(indexOfLink[1], indexOfLink[2]) == indexOfLink[1] ? 1 : 2;
        assertEquals(firstLink, linkOf(1));
    }

    @Test
    public void neverMovesOntoACongestedPort() {
        put(1, S1, 0, 70);
        put(2, S1, 0, 40);
        put(3, S2, 2, 20);
        CongestionRerouter te = new CongestionRerouter(load, 0.8, 0);
        te.markCongested(link(1));   // empty by the estimates, but the collector says congested
        List<FlowMove> moves = te.relieve(link(0), OptionalDouble.empty(), 0);
        assertEquals(1, moves.size());
        assertEquals(2, linkOf(1));
        te.clearCongested(link(1));
        assertFalse(te.isCongested(link(1)));
        // Relieved on the load view alone: no mark (nothing would clear it).
        assertFalse(te.isCongested(link(0)));
        // Relieved on a measured utilisation: marked until cleared.
        te.relieve(link(0), OptionalDouble.of(0.9), 1);
        assertTrue(te.isCongested(link(0)));
    }

    @Test
    public void overThresholdAMoveMustLowerThePeakByTheMinimumGain() {
        put(1, S1, 0, 70);
        put(2, S1, 0, 40);
        put(3, S2, 1, 60);
        put(4, S2, 2, 60);
        List<FlowMove> moves = new CongestionRerouter(load, 0.8, 0).relieve(link(0), OptionalDouble.empty(), 0);
        // 70 or 40 on top of 60 is 104% or 80%: only the 40 MB/s flow fits (exactly at threshold).
        assertEquals(1, moves.size());
        assertEquals(flow(2), moves.get(0).flow());

        // Link 0 carries 80 + 60 (112%); links 1 and 2 carry 45 each. 80 more would make 100%
        // (12 points better: under the minimum gain); 60 more makes 84%, over the threshold but
        // 28 points under the 112% it leaves: it moves, and link 0 is at 64%.
        load.remove(flow(1));
        load.remove(flow(2));
        load.remove(flow(3));
        load.remove(flow(4));
        put(1, S1, 0, 80);
        put(2, S1, 0, 60);
        put(5, S2, 1, 45);
        put(6, S2, 2, 45);
        moves = new CongestionRerouter(load, 0.8, 0).relieve(link(0), OptionalDouble.empty(), 0);
        assertEquals(1, moves.size());
        assertEquals(flow(2), moves.get(0).flow());
        assertEquals(0.84, moves.get(0).maxUtilisationAfter(), 1e-9);
        assertEquals(80 * MB, load.loadBytesPerSec(link(0)), 1);

        // Links 1 and 2 at 66: 60 more is 100.8% against 112%, under the minimum gain: nothing moves.
        put(2, S1, 0, 60);
        put(5, S2, 1, 66);
        put(6, S2, 2, 66);
        List<FlowMove> none = new CongestionRerouter(load, 0.8, 0).relieve(link(0), OptionalDouble.empty(), 0);
        assertTrue(none.isEmpty());
        assertEquals(140 * MB, load.loadBytesPerSec(link(0)), 1);
        assertEquals(0, linkOf(2));
    }

    @Test
    public void dampingKeepsAMovedFlowPut() {
        put(1, S1, 0, 70);
        put(2, S1, 0, 40);
        CongestionRerouter te = new CongestionRerouter(load, 0.8, 100 * MS);
        List<FlowMove> first = te.relieve(link(0), OptionalDouble.empty(), 0);
        assertEquals(flow(1), first.get(0).flow());
        int movedTo = linkOf(1);
        // The new link now gets congested; 50 ms later flow 1 must stay, flow 3 moves instead.
        put(3, S2, movedTo, 50);
        List<FlowMove> damped = te.relieve(link(movedTo), OptionalDouble.empty(), 50 * MS);
        assertEquals(1, damped.size());
        assertEquals(flow(3), damped.get(0).flow());
        assertEquals(movedTo, linkOf(1));
        // Alone on its link, reported congested: still damped at 99 ms, movable at 100 ms.
        load.remove(flow(2));
        load.remove(flow(3));
        assertTrue(te.relieve(link(movedTo), OptionalDouble.of(0.9), 99 * MS).isEmpty());
        assertEquals(movedTo, linkOf(1));
        List<FlowMove> later = te.relieve(link(movedTo), OptionalDouble.of(0.9), 100 * MS);
        assertEquals(1, later.size());
        assertEquals(flow(1), later.get(0).flow());
        assertFalse(movedTo == linkOf(1));
    }

    @Test
    public void dampingDoublesWithEachMoveOfAFlow() {
        put(1, S1, 0, 70);
        CongestionRerouter te = new CongestionRerouter(load, 0.8, 100 * MS);
        // Alone on its link and reported congested wherever it goes: each relief moves it once
        // it may move. After move n it waits 100 ms * 2^(n-1), at most 8x.
        long t = 0;
        long[] waits = {100, 200, 400, 800, 800};
        assertEquals(1, te.relieve(link(linkOf(1)), OptionalDouble.of(0.9), t).size());
        for (long wait : waits) {
            int at = linkOf(1);
            assertTrue(te.relieve(link(at), OptionalDouble.of(0.9), t + wait * MS - 1).isEmpty());
            assertEquals(at, linkOf(1));
            t += wait * MS;
            assertEquals(1, te.relieve(link(at), OptionalDouble.of(0.9), t).size());
            assertNotEquals(at, linkOf(1));
            // Both links left were reported congested and stay marked: clear them for the next round.
            for (int i = 0; i < 3; i++) {
                te.clearCongested(link(i));
            }
        }
        // A flow that expired and came back starts over.
        te.forget(flow(1));
        int at = linkOf(1);
        assertTrue(te.relieve(link(at), OptionalDouble.of(0.9), t + 1).size() == 1);
        assertTrue(te.relieve(link(linkOf(1)), OptionalDouble.of(0.9), t + 1 + 100 * MS).size() == 1);
    }

    @Test
    public void reportedUtilisationOverridesALowEstimate() {
        put(1, S1, 0, 50);
        put(2, S1, 0, 40);
        CongestionRerouter te = new CongestionRerouter(load, 0.8, 0);
        assertTrue(te.relieve(link(0), OptionalDouble.empty(), 0).isEmpty());
        // The collector measured 95% (118.75 MB/s): moving 50 gets it to 68.75 and stops.
        List<FlowMove> moves = te.relieve(link(0), OptionalDouble.of(0.95), 1);
        assertEquals(1, moves.size());
        assertEquals(flow(1), moves.get(0).flow());
    }

    @Test
    public void aMeasuredLoadFollowsTheMovesMadeAgainstIt() {
        put(1, S1, 0, 50);
        put(2, S1, 0, 40);
        // A collector measured link 0 at 95 % (118.75 MB/s); links 1 and 2 at 8 and 20 MB/s.
        assertTrue(load.reportPortLoad(link(0), 118.75 * MB));
        assertTrue(load.reportPortLoad(link(1), 8 * MB));
        assertTrue(load.reportPortLoad(link(2), 20 * MB));
        CongestionRerouter te = new CongestionRerouter(load, 0.8, 0);
        List<FlowMove> moves = te.relieve(link(0), OptionalDouble.empty(), 0);
        assertEquals(1, moves.size());
        assertEquals(flow(1), moves.get(0).flow());
        // Flow 1 took its 50 MB/s off the measurement: 68.75 MB/s is left, under the threshold,
        // so the next decision (before any new measurement) moves nothing more.
        assertEquals(68.75 * MB, load.effectiveLoadBytesPerSec(link(0)), 1e-6);
        assertTrue(te.relieve(link(0), OptionalDouble.empty(), 1).isEmpty());
        assertEquals(0, linkOf(2));
        // It went to link 1 (58 MB/s after the move, against 70 on link 2), on top of what
        // was measured there.
        assertEquals(1, linkOf(1));
        assertEquals(58 * MB, load.effectiveLoadBytesPerSec(link(1)), 1e-6);
    }

    @Test
    public void elephantsLimitedByTheirReceiverAreNotMovedHoweverHotTheyMeasure() {
        // Hosts on 1 Gb/s links, as the fabric's: S1 and S2 send to D, S3 to D3.
        MacAddress s3 = MacAddress.valueOf("00:00:00:00:0a:03");
        MacAddress d3 = MacAddress.valueOf("00:00:00:00:0b:03");
        FabricGraph.Builder b = FabricGraph.builder().addSwitch(A).addSwitch(B);
        for (int i = 0; i < 3; i++) {
            b.addBidirectionalLink(FabricLink.of(A, PortNumber.portNumber(10 + i), B, PortNumber.portNumber(10 + i),
                                                 GBPS));
        }
        b.addHost(host(S1, A, 1, "10.0.0.1", GBPS)).addHost(host(S2, A, 2, "10.0.0.2", GBPS))
                .addHost(host(s3, A, 3, "10.0.0.3", GBPS))
                .addHost(host(D, B, 1, "10.0.1.1", GBPS)).addHost(host(d3, B, 3, "10.0.1.3", GBPS));
        RoutingPlan p = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 3).plan(b.build());
        int[] index = new int[3];
        for (ShadowTree t : p.trees(D)) {
            index[(int) t.nextLinks().get(A).srcPort().toLong() - 10] = t.index();
        }
        FabricLoad l = new FabricLoad(p);
        FlowKey toD1 = FlowKey.of(IpAddress.valueOf("10.0.0.1"), IpAddress.valueOf("10.0.1.1"), 6, 1, 80);
        FlowKey toD2 = FlowKey.of(IpAddress.valueOf("10.0.0.2"), IpAddress.valueOf("10.0.1.1"), 6, 2, 80);
        // Both on link 0, last estimated unevenly (TCP) at 40 and 30 MB/s. Elephants (over 10 %
        // of their 125 MB/s host links), each demanding half of D's link.
        l.place(toD1, FlowPlacement.of(S1, D, index[0], 40 * MB));
        l.place(toD2, FlowPlacement.of(S2, D, index[0], 30 * MB));
        assertTrue(l.isElephant(toD1) && l.isElephant(toD2));
        CongestionRerouter te = new CongestionRerouter(l, 0.8, 0);
        // A notice reads the link full, 55 MB/s more than the two estimates. Their demands fill
        // the link already: the rest is them, measured high, not other traffic. D's link limits
        // them both wherever they go: no move.
        assertTrue(te.relieve(link(0), OptionalDouble.of(1.0), 0).isEmpty());
        assertTrue(te.relieve(link(0), OptionalDouble.empty(), 1).isEmpty());
        // A third elephant on link 0, to D3, which it has to itself: the link is wanted at
        // 62.5 + 62.5 + 125 = 250 MB/s. It moves, largest demand first, and then what is left
        // fits: the two flows to D stay together.
        FlowKey toD3 = FlowKey.of(IpAddress.valueOf("10.0.0.3"), IpAddress.valueOf("10.0.1.3"), 6, 3, 80);
        int d3Link0 = -1;
        for (ShadowTree t : p.trees(d3)) {
            if (t.nextLinks().get(A).srcPort().toLong() == 10) {
                d3Link0 = t.index();
            }
        }
        l.place(toD3, FlowPlacement.of(s3, d3, d3Link0, 40 * MB));
        List<FlowMove> moves = te.relieve(link(0), OptionalDouble.empty(), 2);
        assertEquals(1, moves.size());
        assertEquals(toD3, moves.get(0).flow());
        assertEquals(index[0], l.placement(toD1).get().pathIndex());
        assertEquals(index[0], l.placement(toD2).get().pathIndex());
    }

    @Test
    public void moveIsOneIngressRule() {
        put(1, S1, 0, 70);
        put(2, S1, 0, 40);
        FlowMove m = new CongestionRerouter(load, 0.8, 0).relieve(link(0), OptionalDouble.empty(), 0).get(0);
        var rule = plan.flowRule(m.flow(), m.from().src(), m.from().dst(), m.toIndex());
        assertEquals(A, rule.device());
        assertEquals(link(linkOf(1)).port(), rule.outPort());
        assertEquals(plan.tree(org.planck.api.fabric.ShadowPathId.of(D, m.toIndex())).get().shadowMac(),
                     rule.setEthDst().get());
    }

    @Test
    public void unknownPortOrBadSettings() {
        CongestionRerouter te = new CongestionRerouter(load, 0.8, 0);
        assertTrue(te.relieve(new ConnectPoint(A, PortNumber.portNumber(99)), OptionalDouble.of(1), 0).isEmpty());
        Expect.thrown(IllegalArgumentException.class, () -> te.configure(0, 0));
        Expect.thrown(IllegalArgumentException.class, () -> te.configure(1.5, 0));
        Expect.thrown(IllegalArgumentException.class, () -> te.configure(0.5, -1));
    }

    @Test
    public void measuredPortLoadCountsAgainstAnAlternative() {
        put(1, S1, 0, 70);
        put(2, S1, 0, 40);
        put(3, S2, 2, 5);
        // Link 1 carries no known flow but its counters say 60 MB/s: 70 more would exceed 80%.
        assertTrue(load.reportPortLoad(link(1), 60 * MB));
        assertEquals(0.48, load.utilisation(link(1)), 1e-9);
        List<FlowMove> moves = new CongestionRerouter(load, 0.8, 0).relieve(link(0), OptionalDouble.empty(), 0);
        assertEquals(1, moves.size());
        assertEquals(2, linkOf(1));
        load.clearPortLoad(link(1));
        assertEquals(0.0, load.utilisation(link(1)), 0.0);
        // A measurement over the line rate is an estimate reading high: it counts as the line rate.
        assertTrue(load.reportPortLoad(link(1), 300 * MB));
        assertEquals(1.0, load.utilisation(link(1)), 1e-9);
        assertFalse(load.reportPortLoad(new ConnectPoint(A, PortNumber.portNumber(99)), 1));
    }
}
