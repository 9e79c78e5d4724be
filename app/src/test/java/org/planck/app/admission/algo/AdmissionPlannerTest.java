package org.planck.app.admission.algo;

import org.junit.Test;
import org.onosproject.net.DeviceId;
import org.planck.api.admission.GuaranteeHop;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * The planner's bounds against hand-computed values and against the exact curve algebra.
 */
public class AdmissionPlannerTest {
    private static final DeviceId S1 = DeviceId.deviceId("of:1");
    private static final DeviceId S2 = DeviceId.deviceId("of:2");
    private static final DeviceId S3 = DeviceId.deviceId("of:3");
    /** 1 MB/s shared service, 10 us latency, no per-packet cost, ample buffer, no best effort. */
    private static final SwitchModel PLAIN = new SwitchModel(1_000_000, 10_000, 0, 10_000_000, 0, 0);
    private static final long GBPS = 1_000_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private static GuaranteeHop hop(DeviceId d, long port, long capacityBps) {
        return GuaranteeHop.of(d, PortNumber.portNumber(port), capacityBps);
    }

    private static GuaranteePath path(int index, GuaranteeHop... hops) {
        return new GuaranteePath(index, List.of(hops));
    }

    private static FlowDemand demand(long rate, long burst, long deadline) {
        return new FlowDemand(rate, burst, 64, 64, deadline);
    }

    private static AdmissionPlanner planner(SwitchModel m, AdmissionPlanner.Scope scope) {
        return new AdmissionPlanner(d -> m, scope, 1500);
    }

    @Test
    public void oneSwitchBoundIsHorizontalDeviationPlusTransmission() {
        AdmissionPlanner p = planner(PLAIN, AdmissionPlanner.Scope.SHARED_SWITCH);
        GuaranteePath one = path(0, hop(S1, 1, GBPS));
        AdmissionVerdict v = p.evaluate(demand(100_000, 2000, SECOND), List.of(one));
        // T + b/R = 10 us + 2000 B / 1 MB/s = 2.01 ms; 1500 B at 1 Gb/s = 12 us.
        assertEquals(2_010_000 + 12_000, v.boundNanos());
        Rational exact = PLAIN.service().delayBound(TokenBucket.of(100_000, 2000)).orElseThrow();
        assertEquals(exact.times(Rational.of(SECOND)).ceil().longValue() + 12_000, v.boundNanos());
        assertEquals(10_000 + 12_000, p.fixedLatencyNanos(one));
    }

    @Test
    public void sharedSwitchCountsOtherPortsPerPortModelDoesNot() {
        GuaranteePath toPort1 = path(0, hop(S1, 1, GBPS));
        GuaranteePath toPort2 = path(0, hop(S1, 2, GBPS));
        for (AdmissionPlanner.Scope scope : List.of(AdmissionPlanner.Scope.SHARED_SWITCH,
                AdmissionPlanner.Scope.PER_PORT)) {
            AdmissionPlanner p = planner(PLAIN, scope);
            p.admit("a", demand(100_000, 3000, SECOND), toPort1);
            AdmissionVerdict v = p.evaluate(demand(100_000, 2000, SECOND), List.of(toPort2));
            long expected = scope == AdmissionPlanner.Scope.SHARED_SWITCH
                    ? 10_000 + 5_000_000 + 12_000   // T + (3000 + 2000)/R
                    : 10_000 + 2_000_000 + 12_000;  // the other port's burst is ignored
            assertEquals(scope.toString(), expected, v.boundNanos());
            assertEquals(scope.toString(), expected + (scope == AdmissionPlanner.Scope.SHARED_SWITCH ? 0 : 1_000_000),
                    (long) v.boundsNanos().get("a"));
        }
    }

    @Test
    public void anyOrderBoundIsTheLongestBusyPeriod() {
        // R = 1 MB/s, T = 10 us; flows of 100 kB/s with bursts 3000 B and 2000 B on two ports of one
        // switch: B = 5000 B, rho = 200 kB/s. Busy period (B + R T)/(R - rho) = (5000 + 10)/800000 s
        // = 6,262,500 ns, against FIFO's T + B/R = 5,010,000 ns; plus one MTU (12 us) on the port.
        AdmissionPlanner p = planner(PLAIN, AdmissionPlanner.Scope.SHARED_SWITCH_ANY_ORDER);
        p.admit("a", demand(100_000, 3000, SECOND), path(0, hop(S1, 1, GBPS)));
        AdmissionVerdict v = p.evaluate(demand(100_000, 2000, SECOND), List.of(path(0, hop(S1, 2, GBPS))));
        assertEquals(6_262_500 + 12_000, v.boundNanos());
        assertEquals(6_262_500 + 12_000, (long) v.boundsNanos().get("a"));
        // A rate that fills the server leaves no busy period bounded: refused, where FIFO accepts it.
        AdmissionPlanner full = planner(PLAIN, AdmissionPlanner.Scope.SHARED_SWITCH_ANY_ORDER);
        full.admit("a", demand(500_000, 3000, SECOND), path(0, hop(S1, 1, GBPS)));
        assertFalse(full.evaluate(demand(500_000, 2000, SECOND), List.of(path(0, hop(S1, 2, GBPS)))).admitted());
        AdmissionPlanner fifo = planner(PLAIN, AdmissionPlanner.Scope.SHARED_SWITCH);
        fifo.admit("a", demand(500_000, 3000, SECOND), path(0, hop(S1, 1, GBPS)));
        assertTrue(fifo.evaluate(demand(500_000, 2000, SECOND), List.of(path(0, hop(S1, 2, GBPS)))).admitted());
    }

    @Test
    public void burstGrowsHopByHop() {
        AdmissionPlanner p = planner(PLAIN, AdmissionPlanner.Scope.SHARED_SWITCH);
        GuaranteePath two = path(0, hop(S1, 1, GBPS), hop(S2, 1, GBPS));
        AdmissionVerdict v = p.evaluate(demand(100_000, 2000, SECOND), List.of(two));
        // Hop 1: 2_010_000 + 12_000. Burst at hop 2: 2000 + 0.1 MB/s * 2.022 ms = 2202.2 B.
        // Hop 2: 10 us + 2202.2 B / 1 MB/s = 2_212_200 ns, + 12 us.
        assertEquals(2_022_000 + 2_212_200 + 12_000, v.boundNanos());
    }

    @Test
    public void cyclicDependencyReachesTheFixedPoint() {
        // Two flows crossing S1 and S2 in opposite directions: each switch's delay depends on the
        // other's. With T = 0, tx = 1 ns, r/R = 1/2 and b = 1000 B:
        // d = (2b + r (d + tx)) / R  =>  d = 4_000_001 ns on both switches.
        SwitchModel m = new SwitchModel(1_000_000, 0, 0, 10_000_000, 0, 0);
        AdmissionPlanner p = planner(m, AdmissionPlanner.Scope.SHARED_SWITCH);
        long c = 12_000_000_000_000L; // 1500 B in exactly 1 ns
        p.admit("ab", new FlowDemand(500_000, 1000, 64, 64, SECOND), path(0, hop(S1, 1, c), hop(S2, 1, c)));
        p.admit("ba", new FlowDemand(500_000, 1000, 64, 64, SECOND), path(0, hop(S2, 2, c), hop(S1, 2, c)));
        Map<String, Long> b = p.bounds();
        assertEquals(8_000_004L, (long) b.get("ab"));
        assertEquals(8_000_004L, (long) b.get("ba"));
    }

    @Test
    public void perPacketCostScalesWithMinimumPacketSize() {
        SwitchModel m = new SwitchModel(1_000_000, 0, 50, 10_000_000, 0, 0);
        AdmissionPlanner p = planner(m, AdmissionPlanner.Scope.SHARED_SWITCH);
        // min packet 100 B, overhead 50 B: 1.5 work bytes per byte; 1000 B burst = 1500 work B.
        AdmissionVerdict v = p.evaluate(new FlowDemand(100_000, 1000, 100, 100, SECOND),
                List.of(path(0, hop(S1, 1, GBPS))));
        assertEquals(1_500_000 + 12_000, v.boundNanos());
        // Rate 700 kB/s needs 1.05 MB/s of work: over capacity although bytes alone would fit.
        AdmissionVerdict over = p.evaluate(new FlowDemand(700_000, 1000, 100, 100, SECOND),
                List.of(path(0, hop(S1, 1, GBPS))));
        assertFalse(over.admitted());
        assertTrue(over.reason().orElseThrow(), over.reason().orElseThrow().contains("over capacity"));
        assertTrue(over.reason().orElseThrow().contains("of:1"));
    }

    @Test
    public void bestEffortAllowanceTakesRateAndBurst() {
        SwitchModel m = new SwitchModel(1_000_000, 0, 0, 10_000_000, 500_000, 4000);
        AdmissionPlanner p = planner(m, AdmissionPlanner.Scope.SHARED_SWITCH);
        AdmissionVerdict v = p.evaluate(demand(400_000, 1000, SECOND), List.of(path(0, hop(S1, 1, GBPS))));
        assertEquals(5_000_000 + 12_000, v.boundNanos());
        assertFalse(p.evaluate(demand(600_000, 1000, SECOND), List.of(path(0, hop(S1, 1, GBPS)))).admitted());
    }

    @Test
    public void rejectsANewFlowThatWouldBreakAnAdmittedOne() {
        AdmissionPlanner p = planner(PLAIN, AdmissionPlanner.Scope.SHARED_SWITCH);
        GuaranteePath a = path(0, hop(S1, 1, GBPS));
        p.admit("tight", demand(100_000, 2000, 2_100_000), a);
        AdmissionVerdict v = p.evaluate(demand(100_000, 2000, SECOND), List.of(path(0, hop(S1, 2, GBPS))));
        assertFalse(v.admitted());
        String why = v.reason().orElseThrow();
        assertTrue(why, why.contains("admitted flow tight"));
        assertTrue(why, why.contains("of:1"));
        // Nothing changed.
        assertEquals(1, p.size());
        assertEquals(2_022_000L, (long) p.bounds().get("tight"));
    }

    @Test
    public void choosesAnotherPathWhenTheFirstIsFull() {
        AdmissionPlanner p = planner(PLAIN, AdmissionPlanner.Scope.SHARED_SWITCH);
        GuaranteePath viaS2 = path(0, hop(S1, 1, GBPS), hop(S2, 1, GBPS), hop(S3, 1, GBPS));
        GuaranteePath viaS3 = path(1, hop(S1, 2, GBPS), hop(S3, 1, GBPS));
        p.admit("x", demand(900_000, 1000, SECOND), path(0, hop(S2, 5, GBPS)));
        AdmissionVerdict v = p.evaluate(demand(200_000, 1000, SECOND), List.of(viaS2, viaS3));
        assertTrue(v.toString(), v.admitted());
        assertEquals(1, v.path().orElseThrow().index());
    }

    @Test
    public void deadlineBelowFixedLatencyIsRejected() {
        AdmissionPlanner p = planner(PLAIN, AdmissionPlanner.Scope.SHARED_SWITCH);
        GuaranteePath one = path(0, hop(S1, 1, GBPS));
        AdmissionVerdict v = p.evaluate(demand(1, 64, p.fixedLatencyNanos(one) - 1), List.of(one));
        assertFalse(v.admitted());
        assertTrue(v.reason().orElseThrow().contains("the new flow would miss its deadline"));
    }

    @Test
    public void backlogBeyondBufferIsRejected() {
        SwitchModel small = new SwitchModel(1_000_000, 1_000_000, 0, 3000, 0, 0);
        AdmissionPlanner p = planner(small, AdmissionPlanner.Scope.SHARED_SWITCH);
        // backlog = b + r T = 2000 + 100_000 * 1 ms = 2100 B fits; b = 3000 does not.
        assertTrue(p.evaluate(demand(100_000, 2000, SECOND), List.of(path(0, hop(S1, 1, GBPS)))).admitted());
        AdmissionVerdict v = p.evaluate(demand(100_000, 3000, SECOND), List.of(path(0, hop(S1, 1, GBPS))));
        assertTrue(v.reason().orElseThrow(), v.reason().orElseThrow().contains("backlog bound 3100 B"));
    }

    @Test
    public void extraBestEffortTrafficIsCheckedAgainstAdmittedDeadlines() {
        AdmissionPlanner p = planner(PLAIN, AdmissionPlanner.Scope.SHARED_SWITCH);
        p.admit("g", demand(100_000, 2000, 3_000_000), path(0, hop(S1, 1, GBPS)));
        assertTrue(p.checkExtraTraffic(List.of(hop(S2, 1, GBPS)), 500_000, 1500).isEmpty());
        assertTrue(p.checkExtraTraffic(List.of(hop(S1, 2, GBPS)), 100_000, 500).isEmpty());
        assertTrue(p.checkExtraTraffic(List.of(hop(S1, 2, GBPS)), 100_000, 1500).isPresent());
    }

    /**
     * Warm starts (each admission starts from the previous fixed point) reach exactly the bounds
     * a cold solve from zero delays reaches, here with flows in both directions over a ring of
     * switches (cyclic dependencies).
     */
    @Test
    public void warmStartReachesTheSameFixedPointAsACold() {
        Random rnd = new Random(7);
        DeviceId[] ring = new DeviceId[6];
        for (int i = 0; i < ring.length; i++) {
            ring[i] = DeviceId.deviceId("of:" + (10 + i));
        }
        SwitchModel m = new SwitchModel(50_000_000, 20_000, 100, Long.MAX_VALUE / 4_000_000_000L, 1_000_000, 3000);
        AdmissionPlanner warm = planner(m, AdmissionPlanner.Scope.SHARED_SWITCH);
        AdmissionPlanner cold = planner(m, AdmissionPlanner.Scope.SHARED_SWITCH);
        for (int f = 0; f < 40; f++) {
            int from = rnd.nextInt(ring.length);
            int len = 2 + rnd.nextInt(3);
            int dir = rnd.nextBoolean() ? 1 : ring.length - 1;
            List<GuaranteeHop> hs = new ArrayList<>();
            for (int h = 0; h < len; h++) {
                hs.add(hop(ring[(from + h * dir) % ring.length], 1 + dir % 2, GBPS));
            }
            FlowDemand d = new FlowDemand(100_000 + rnd.nextInt(400_000), 1500 + rnd.nextInt(5000), 64, 1500,
                    Long.MAX_VALUE / 4);
            GuaranteePath gp = new GuaranteePath(0, hs);
            assertTrue(warm.evaluate(d, List.of(gp)).admitted());
            warm.admit("f" + f, d, gp);
            cold.admit("f" + f, d, gp);
        }
        cold.admit("x", demand(1, 64, SECOND), path(0, hop(S1, 1, GBPS)));
        cold.release("x"); // forgets the warm start: the next solve starts from zero delays
        Map<String, Long> fromZero = cold.bounds();
        assertEquals(40, fromZero.size());
        assertEquals(fromZero, warm.bounds());
    }

    /**
     * Random feed-forward tandems: the planner's bound is the exact hop-by-hop rational bound,
     * rounded up by less than one nanosecond per hop.
     */
    @Test
    public void matchesExactAlgebraOnRandomTandems() {
        Random rnd = new Random(16);
        for (int trial = 0; trial < 200; trial++) {
            SwitchModel m = new SwitchModel(1_000_000 + rnd.nextInt(9_000_000), rnd.nextInt(50_000),
                    0, Long.MAX_VALUE / 4_000_000_000L, 0, 0);
            AdmissionPlanner p = planner(m, AdmissionPlanner.Scope.SHARED_SWITCH);
            int hops = 1 + rnd.nextInt(5);
            List<GuaranteeHop> hs = new ArrayList<>();
            for (int h = 0; h < hops; h++) {
                hs.add(hop(DeviceId.deviceId("of:" + (h + 1)), 1, 1_000_000_000L * (1 + rnd.nextInt(10))));
            }
            long r = 1 + rnd.nextInt(900_000);
            long b = 1500 + rnd.nextInt(100_000);
            AdmissionVerdict v = p.evaluate(new FlowDemand(r, b, 64, 1500, Long.MAX_VALUE / 4),
                    List.of(new GuaranteePath(0, hs)));
            Rational ns = Rational.of(SECOND);
            TokenBucket a = TokenBucket.of(r, b);
            Rational total = Rational.ZERO;
            for (GuaranteeHop h : hs) {
                Rational d = m.service().delayBound(a).orElseThrow()
                        .plus(Rational.of(1500L * 8, h.outCapacityBps()));
                total = total.plus(d);
                a = a.delayedBy(d);
            }
            long exactNs = total.times(ns).ceil().longValue();
            assertTrue("trial " + trial, v.boundNanos() >= exactNs);
            assertTrue("trial " + trial + ": " + v.boundNanos() + " vs " + exactNs,
                    v.boundNanos() - exactNs <= 2L * hops);
        }
    }
}
