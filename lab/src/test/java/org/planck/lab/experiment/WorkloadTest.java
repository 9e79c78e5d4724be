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
    public void everyRoundIsAFreshDrawOfThePatternAndTheFirstIsTheOneRoundPattern() {
        int rounds = 4;
        for (long seed = 0; seed < 20; seed++) {
            for (Workload w : List.of(Workload.STRIDE8, Workload.RANDOM, Workload.BIJECTION)) {
                List<List<Integer>> one = w.destinations(16, seed);
                List<List<Integer>> many = w.destinations(16, seed, rounds);
                assertEquals(w.flowCount(16, rounds), many.stream().mapToInt(List::size).sum());
                Set<List<Integer>> distinctRounds = new HashSet<>();
                for (int r = 0; r < rounds; r++) {
                    List<Integer> round = new java.util.ArrayList<>();
                    for (int x = 0; x < 16; x++) {
                        assertEquals(rounds, many.get(x).size());
                        int y = many.get(x).get(r);
                        assertTrue(y >= 0 && y < 16 && y != x);
                        round.add(y);
                        if (r == 0) {
                            assertEquals(one.get(x).get(0), many.get(x).get(0));
                        }
                    }
                    if (w == Workload.STRIDE8) {
                        assertEquals(one.stream().map(l -> l.get(0)).collect(java.util.stream.Collectors.toList()),
                                     round);
                    }
                    if (w == Workload.BIJECTION) {
                        assertEquals("round " + r + " is a permutation", 16, new HashSet<>(round).size());
                    }
                    distinctRounds.add(round);
                }
                if (w != Workload.STRIDE8) {
                    assertTrue(w + " seed " + seed + ": rounds are fresh draws", distinctRounds.size() > 1);
                }
            }
        }
    }

    @Test
    public void shuffleHasOneRoundWhateverTheRounds() {
        assertEquals(Workload.SHUFFLE.destinations(16, 5), Workload.SHUFFLE.destinations(16, 5, 4));
        assertEquals(16 * 15, Workload.SHUFFLE.flowCount(16, 4));
    }

    @Test(expected = IllegalArgumentException.class)
    public void zeroRoundsAreRefused() {
        Workload.RANDOM.destinations(16, 1, 0);
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
