package org.planck.app.admission.algo;

import org.junit.Test;

import java.math.BigInteger;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * Token buckets and rate-latency curves against bounds worked out by hand from Le Boudec and
 * Thiran, "Network Calculus" (Thm 1.4.1 delay, 1.4.2 backlog, 1.4.3 output, 1.4.6 concatenation,
 * 6.2.1 blind multiplexing).
 */
public class CurvesTest {
    private static Rational q(long n, long d) {
        return Rational.of(n, d);
    }

    private static Rational q(long n) {
        return Rational.of(n);
    }

    @Test
    public void delayBacklogAndOutputOfOneServer() {
        TokenBucket a = TokenBucket.of(q(1), q(2));
        RateLatency b = RateLatency.of(q(3), q(4));
        // h = T + b/R = 4 + 2/3; v = b + rT = 2 + 4; output burst b + rT = 6.
        assertEquals(q(14, 3), b.delayBound(a).orElseThrow());
        assertEquals(q(6), b.backlogBound(a).orElseThrow());
        assertEquals(TokenBucket.of(q(1), q(6)), b.outputBound(a).orElseThrow());
    }

    @Test
    public void noBoundWhenArrivalRateExceedsService() {
        TokenBucket a = TokenBucket.of(q(5), q(1));
        RateLatency b = RateLatency.of(q(4), q(1));
        assertFalse(b.delayBound(a).isPresent());
        assertFalse(b.backlogBound(a).isPresent());
        assertFalse(b.outputBound(a).isPresent());
        // Equal rates are still stable.
        assertEquals(q(1).plus(q(1, 5)), RateLatency.of(q(5), q(1)).delayBound(a).orElseThrow());
    }

    @Test
    public void concatenationPaysBurstsOnlyOnce() {
        TokenBucket a = TokenBucket.of(q(2), q(10));
        RateLatency s1 = RateLatency.of(q(10), q(1));
        RateLatency s2 = RateLatency.of(q(5), q(2));
        RateLatency e2e = s1.concatenate(s2);
        assertEquals(RateLatency.of(q(5), q(3)), e2e);
        // End to end: 3 + 10/5 = 5.
        assertEquals(q(5), e2e.delayBound(a).orElseThrow());
        // Hop by hop: 1 + 10/10 = 2, burst grows to 10 + 2*1 = 12, then 2 + 12/5 = 22/5: sum 32/5 > 5.
        Rational d1 = s1.delayBound(a).orElseThrow();
        TokenBucket out1 = s1.outputBound(a).orElseThrow();
        assertEquals(TokenBucket.of(q(2), q(12)), out1);
        Rational sum = d1.plus(s2.delayBound(out1).orElseThrow());
        assertEquals(q(32, 5), sum);
        assertTrue(sum.compareTo(e2e.delayBound(a).orElseThrow()) > 0);
    }

    @Test
    public void blindMultiplexingLeftover() {
        RateLatency b = RateLatency.of(q(10), q(1));
        TokenBucket cross = TokenBucket.of(q(4), q(6));
        // R - r' = 6; T + (b' + r'T)/(R - r') = 1 + 10/6 = 8/3.
        assertEquals(RateLatency.of(q(6), q(8, 3)), b.leftover(cross).orElseThrow());
        assertFalse(b.leftover(TokenBucket.of(q(10), q(0))).isPresent());
    }

    @Test
    public void aggregateAndDelayedCurves() {
        TokenBucket sum = TokenBucket.of(q(1), q(2)).plus(TokenBucket.of(q(3, 2), q(1, 2)));
        assertEquals(TokenBucket.of(q(5, 2), q(5, 2)), sum);
        assertEquals(TokenBucket.of(q(5, 2), q(5)), sum.delayedBy(q(1)));
        assertEquals(TokenBucket.of(q(5), q(5)), sum.scaled(q(2)));
    }

    @Test
    public void rationalRoundsBoundsUp() {
        assertEquals(BigInteger.valueOf(4), q(7, 2).ceil());
        assertEquals(BigInteger.valueOf(-3), q(-7, 2).ceil());
        assertEquals(BigInteger.valueOf(4), q(8, 2).ceil());
        assertEquals(q(1, 2), q(-2, -4));
        assertEquals(q(1, 6), q(1, 2).minus(q(1, 3)));
        assertEquals(q(3, 2), q(1, 2).dividedBy(q(1, 3)));
        assertTrue(q(1, 3).compareTo(q(1, 2)) < 0);
    }

    @Test(expected = IllegalArgumentException.class)
    public void negativeRateIsRefused() {
        TokenBucket.of(q(-1), q(1));
    }

    @Test(expected = IllegalArgumentException.class)
    public void zeroServiceRateIsRefused() {
        RateLatency.of(q(0), q(1));
    }
}
