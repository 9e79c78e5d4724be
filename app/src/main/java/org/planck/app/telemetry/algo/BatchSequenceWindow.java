package org.planck.app.telemetry.algo;

/**
 * Loss accounting of one collector's batch sequence numbers when batches may arrive out of
 * order: a collector sends congestion notices on a connection of their own, beside its flow
 * reports, and both take numbers from one counter. A sliding window of the last
 * {@value #WINDOW} numbers below the highest seen (as IPsec's anti-replay window, RFC 4303
 * §3.4.3): a number counts as lost once it falls out of the window unseen, so a batch that
 * arrives a little late is not lost, and none is counted twice. Numbers before the first one
 * seen are not counted. Not thread-safe.
 */
public final class BatchSequenceWindow {
    /** Numbers kept below the highest seen. */
    public static final int WINDOW = 64;

    private long highest = -1;
    /** Bit i: highest - i was seen. */
    private long seen;
    private long late;
    private long duplicates;

    /**
     * Takes a batch's sequence number.
     *
     * @param seq sequence number, >= 0
     * @return numbers found lost by this one (they left the window unseen)
     */
    public long accept(long seq) {
        if (seq < 0) {
            throw new IllegalArgumentException("seq must be >= 0");
        }
        if (highest < 0) {
            highest = seq;
            seen = -1L; // nothing before the first number is owed
            return 0;
        }
        if (seq > highest) {
            long shift = seq - highest;
            long lost;
            if (shift >= WINDOW) {
                // Every number of the old window leaves it, and those between it and the new
                // window never entered one.
                lost = (WINDOW - Long.bitCount(seen)) + (shift - WINDOW);
                seen = 1L;
            } else {
                long leaving = seen >>> (WINDOW - shift);
                lost = shift - Long.bitCount(leaving);
                seen = (seen << shift) | 1L;
            }
            highest = seq;
            return lost;
        }
        long back = highest - seq;
        if (back >= WINDOW) {
            late++; // already counted lost when it left the window
            return 0;
        }
        long bit = 1L << back;
        if ((seen & bit) != 0) {
            duplicates++; // a retry of a batch that had arrived
        } else {
            late++;
            seen |= bit;
        }
        return 0;
    }

    /**
     * Numbers still missing inside the window (not yet counted lost).
     *
     * @return count
     */
    public long missing() {
        return highest < 0 ? 0 : WINDOW - Long.bitCount(seen);
    }

    /**
     * Batches that arrived after a higher number.
     *
     * @return count
     */
    public long late() {
        return late;
    }

    /**
     * Batches whose number had arrived before.
     *
     * @return count
     */
    public long duplicates() {
        return duplicates;
    }
}
