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
    public void largeSamplesFallBackToTheNormalQuantile() {
        assertEquals(12.706, PairedDifference.tQuantile975(1), 0);
        assertEquals(2.042, PairedDifference.tQuantile975(30), 0);
        assertEquals(1.960, PairedDifference.tQuantile975(200), 0);
    }
}
