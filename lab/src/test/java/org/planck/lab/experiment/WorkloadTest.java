package org.planck.lab.experiment;

import org.junit.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

/**
 * The workload definitions of docs/lab.md.
 */
public class WorkloadTest {
    @Test
    public void strideSendsEightAhead() {
        List<List<Integer>> d = Workload.STRIDE8.destinations(16, 1);
        for (int x = 0; x < 16; x++) {
            assertEquals(List.of((x + 8) % 16), d.get(x));
        }
    }

    @Test
    public void bijectionIsAPermutationWithoutFixedPoints() {
        for (long seed = 0; seed < 50; seed++) {
            List<List<Integer>> d = Workload.BIJECTION.destinations(16, seed);
            Set<Integer> seen = new HashSet<>();
            for (int x = 0; x < 16; x++) {
                assertEquals(1, d.get(x).size());
                assertNotEquals(x, (int) d.get(x).get(0));
                seen.add(d.get(x).get(0));
            }
            assertEquals(16, seen.size());
        }
    }

    @Test
    public void randomNeverSendsToItself() {
        for (long seed = 0; seed < 50; seed++) {
            List<List<Integer>> d = Workload.RANDOM.destinations(16, seed);
            for (int x = 0; x < 16; x++) {
                int y = d.get(x).get(0);
                assertTrue(y >= 0 && y < 16 && y != x);
            }
        }
    }

    @Test
    public void shuffleVisitsEveryOtherHostOnce() {
        List<List<Integer>> d = Workload.SHUFFLE.destinations(16, 3);
        for (int x = 0; x < 16; x++) {
            assertEquals(15, d.get(x).size());
            assertEquals(15, new HashSet<>(d.get(x)).size());
            assertTrue(!d.get(x).contains(x));
        }
        assertNotEquals("orders differ between hosts", d.get(0).subList(1, 15), d.get(1).subList(0, 14));
    }

    @Test
    public void sameSeedSamePattern() {
        for (Workload w : Workload.values()) {
            assertEquals(w.destinations(16, 7), w.destinations(16, 7));
        }
        assertNotEquals(Workload.BIJECTION.destinations(16, 7), Workload.BIJECTION.destinations(16, 8));
    }

    @Test
    public void idsRoundTrip() {
        for (Workload w : Workload.values()) {
            assertEquals(w, Workload.byId(w.id()));
        }
    }

    @Test(expected = IllegalArgumentException.class)
    public void unknownIdIsRefused() {
        Workload.byId("stride4");
    }

    @Test
    public void linkRateDecision() {
        assertEquals(LinkRateDecision.TEN_GBPS, LinkRateDecision.fromCalibration(800, 1000).linkBps());
        assertEquals(LinkRateDecision.ONE_GBPS, LinkRateDecision.fromCalibration(5000, 1000).linkBps());
        assertEquals("1 Gb/s", LinkRateDecision.fromCalibration(5000, 1000).label());
    }
}
