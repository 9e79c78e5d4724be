package org.planck.lab.experiment;

import org.junit.Test;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

public class PairedDifferenceTest {
    @Test
    public void intervalOfThreePairsUsesTWithTwoDegreesOfFreedom() {
        // Differences 1, 2, 3: mean 2, sd 1, half-width 4.303 / sqrt(3) = 2.484.
        PairedDifference d = PairedDifference.of(new double[]{11, 12, 13}, new double[]{10, 10, 10});
        assertEquals(3, d.pairs());
        assertEquals(2.0, d.mean(), 1e-12);
        assertEquals(2.0 - 2.4844, d.low(), 1e-3);
        assertEquals(2.0 + 2.4844, d.high(), 1e-3);
        assertFalse(d.aboveZero());
    }

    @Test
    public void consistentGainIsAboveZeroAndPairingRemovesTheSeedEffect() {
        // Seeds differ a lot, the gain per seed hardly: paired, the interval stays above zero.
        PairedDifference d = PairedDifference.of(new double[]{510, 710, 910}, new double[]{500, 701, 899});
        assertEquals(10.0, d.mean(), 1e-9);
        assertTrue(d.aboveZero());
    }

    @Test
    public void onePairHasNoInterval() {
        PairedDifference d = PairedDifference.of(new double[]{2}, new double[]{1});
        assertEquals(1.0, d.mean(), 0);
        assertFalse(d.aboveZero());
        assertTrue(Double.isInfinite(d.high()));
    }

    @Test(expected = IllegalArgumentException.class)
    public void unequalPairsAreRefused() {
        PairedDifference.of(new double[]{1, 2}, new double[]{1});
    }

    @Test
    public void quantilesAreStudentsT() {
        assertEquals(12.706, PairedDifference.tQuantile975(1), 1e-3);
        assertEquals(4.303, PairedDifference.tQuantile975(2), 1e-3);
        assertEquals(2.042, PairedDifference.tQuantile975(30), 1e-3);
        assertEquals(1.972, PairedDifference.tQuantile975(200), 1e-3);
    }

    @Test
    public void aGainThatScalesWithTheSeedIsAboveZeroAsARatioButNotAsADifference() {
        // The lab's random workload (seeds 1-3): PlanckTE ahead by 14, 25 and 15 %, i.e. by
        // 62, 160 and 78 Mb/s, because the seeds differ in how much traffic can flow at all.
        double[] te = {504.9, 799.5, 608.6};
        double[] poll = {443.3, 640.0, 531.1};
        PairedDifference d = PairedDifference.of(te, poll);
        assertFalse(d.aboveZero());
        assertEquals(99.6, d.mean(), 0.1);
        PairedDifference r = PairedDifference.ofRatio(te, poll);
        assertEquals(3, r.pairs());
        // ln ratios 0.1301, 0.2225, 0.1362: mean 0.1629 (gain 17.7 %), sd 0.0516,
        // half-width 4.303 x 0.0516 / sqrt(3) = 0.1283.
        assertEquals(Math.expm1(0.1629), r.mean(), 1e-3);
        assertEquals(Math.expm1(0.1629 - 0.1283), r.low(), 2e-3);
        assertEquals(Math.expm1(0.1629 + 0.1283), r.high(), 2e-3);
        assertTrue(r.aboveZero());
    }

    @Test
    public void noGainAsARatioIsNotAboveZero() {
        PairedDifference r = PairedDifference.ofRatio(new double[]{100, 210, 290}, new double[]{100, 200, 300});
        assertFalse(r.aboveZero());
        assertTrue(r.low() < 0 && r.high() > 0);
    }

    @Test(expected = IllegalArgumentException.class)
    public void aRatioOfNothingIsRefused() {
        PairedDifference.ofRatio(new double[]{1, 0}, new double[]{1, 1});
    }
}
