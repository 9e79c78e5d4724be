package org.planck.lab.control;

import org.junit.Test;
import org.onosproject.net.ConnectPoint;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

/**
 * Loop-latency bookkeeping: the four intervals of an entry, nearest-rank percentiles, the
 * applied-only view and the bound on kept entries.
 */
public class LoopLatencyLogTest {
    private static final ConnectPoint P = ConnectPoint.deviceConnectPoint("of:0000000000000001/3");

    private static LoopLatencyLog.Entry moved(long sample, long receipt, long decision, long applied) {
        // The fabric's clock is its own (it lags real time): any value, never used for intervals.
        return new LoopLatencyLog.Entry(LoopLatencyLog.Trigger.NOTICE, P, sample, receipt, decision, 42, applied, 1);
    }

    @Test
    public void intervalsOfOneDecisionUseTheControllersClock() {
        LoopLatencyLog.Entry e = moved(1_000, 1_400, 1_450, 1_700);
        assertEquals(42, e.appliedUs());
        assertEquals(1_700, e.answeredUs());
        assertEquals(400, e.sampleToReceiptUs());
        assertEquals(50, e.receiptToDecisionUs());
        assertEquals(250, e.decisionToAppliedUs());
        assertEquals(700, e.sampleToAppliedUs());
    }

    @Test
    public void stagesSplitTheLoopAndUnknownOnesStayOut() {
        LoopLatencyLog.Stages st = new LoopLatencyLog.Stages(1_100, 1_150, -1, 0).submitted(1_500);
        LoopLatencyLog.Entry e = new LoopLatencyLog.Entry(LoopLatencyLog.Trigger.NOTICE, P, 1_000, 1_400, 1_450,
                                                          42, 1_700, 1, st);
        assertEquals(100, e.sampleToDetectUs());
        assertEquals(50, e.detectToSentUs());
        assertEquals(250, e.sentToReceiptUs());
        assertEquals(50, e.decisionToSubmittedUs());
        assertEquals(200, e.submittedToAnsweredUs());
        assertEquals(700, e.windowStartToAppliedUs());
        // A poll: no collector stages, and its 100 ms window counts in what a change waits for.
        LoopLatencyLog.Entry poll = new LoopLatencyLog.Entry(LoopLatencyLog.Trigger.POLL, P, 1_000, 1_400, 1_450,
                                                             42, 1_700, 1,
                                                             new LoopLatencyLog.Stages(-1, -1, 1_500, 100_000));
        assertEquals(-1, poll.sampleToDetectUs());
        assertEquals(-1, poll.sentToReceiptUs());
        assertEquals(100_700, poll.windowStartToAppliedUs());
        LoopLatencyLog log = new LoopLatencyLog(10);
        log.record(e);
        log.record(poll);
        assertEquals(1, log.appliedKnown(LoopLatencyLog.Entry::sentToReceiptUs).count());
        assertEquals(2, log.appliedKnown(LoopLatencyLog.Entry::submittedToAnsweredUs).count());
    }

    @Test
    public void percentilesByNearestRank() {
        LoopLatencyLog log = new LoopLatencyLog(1000);
        for (int i = 1; i <= 100; i++) {
            log.record(moved(0, 0, 0, i * 10L));
        }
        LoopLatencyLog.Distribution d = log.applied(LoopLatencyLog.Entry::sampleToAppliedUs);
        assertEquals(100, d.count());
        assertEquals(500, d.quantile(0.5));
        assertEquals(900, d.quantile(0.9));
        assertEquals(990, d.quantile(0.99));
        assertEquals(1000, d.max());
        assertEquals(10, d.quantile(0));
    }

    @Test
    public void decisionsWithoutMovesCountOnlyWhereNoRuleIsInvolved() {
        LoopLatencyLog log = new LoopLatencyLog(10);
        log.record(moved(0, 100, 120, 300));
        log.record(new LoopLatencyLog.Entry(LoopLatencyLog.Trigger.POLL, P, 0, 50, 60, -1, -1, 0));
        assertEquals(1, log.applied(LoopLatencyLog.Entry::sampleToAppliedUs).count());
        assertArrayEquals(new long[]{10, 20}, log.all(LoopLatencyLog.Entry::receiptToDecisionUs).values());
    }

    @Test
    public void fullLogCountsWhatItDrops() {
        LoopLatencyLog log = new LoopLatencyLog(2);
        for (int i = 0; i < 5; i++) {
            log.record(moved(0, 1, 2, 3));
        }
        assertEquals(2, log.entries().size());
        assertEquals(3, log.overflow());
        log.clear();
        assertEquals(0, log.entries().size());
        assertEquals(0, log.overflow());
    }

    @Test
    public void emptyDistributionIsZero() {
        LoopLatencyLog.Distribution d = new LoopLatencyLog(1).applied(LoopLatencyLog.Entry::sampleToAppliedUs);
        assertEquals(0, d.count());
        assertEquals(0, d.quantile(0.99));
        assertEquals(0, d.max());
    }

    @Test(expected = IllegalArgumentException.class)
    public void appliedTimeWithoutMovesIsRefused() {
        new LoopLatencyLog.Entry(LoopLatencyLog.Trigger.NOTICE, P, 0, 1, 2, 3, 4, 0);
    }

    @Test(expected = IllegalArgumentException.class)
    public void movesWithoutAppliedTimeAreRefused() {
        new LoopLatencyLog.Entry(LoopLatencyLog.Trigger.NOTICE, P, 0, 1, 2, -1, -1, 2);
    }
}
