package org.planck.lab.control;

import com.google.common.collect.ImmutableList;
import org.onosproject.net.ConnectPoint;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToLongFunction;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The control loop's timeline per congestion decision: when the triggering sample was captured,
 * when the controller received the event, when it decided, and from when the emulator forwards
 * by the new rules. Bounded: past {@code capacity} entries further ones are counted, not kept.
 * Thread-safe.
 */
public final class LoopLatencyLog {
    /** What started a decision. */
    public enum Trigger {
        /** A collector's CONGESTED notice. */
        NOTICE,
        /** The controller's own load view (sum of flow-rate estimates) crossed the threshold. */
        LOAD_VIEW,
        /** A poll of the emulator's counters found the port above threshold. */
        POLL
    }

    /**
     * One decision. Times in µs since the epoch; {@code appliedUs} (the fabric's clock) and
     * {@code answeredUs} (the controller's clock when the fabric confirmed the rules) are -1 when
     * nothing was moved.
     */
    public static final class Entry {
        private final Trigger trigger;
        private final ConnectPoint port;
        private final long sampleUs;
        private final long receiptUs;
        private final long decisionUs;
        private final long appliedUs;
        private final long answeredUs;
        private final int moves;

        /**
         * An entry.
         *
         * @param trigger    what started the decision
         * @param port       the congested port
         * @param sampleUs   capture time of the triggering sample (or counter time when polling)
         * @param receiptUs  controller receipt time
         * @param decisionUs time the moves were decided
         * @param appliedUs  fabric time from which the moves are in force, -1 if none
         * @param answeredUs controller time when the fabric confirmed the moves, -1 if none
         * @param moves      number of flows moved
         */
        public Entry(Trigger trigger, ConnectPoint port, long sampleUs, long receiptUs, long decisionUs,
                     long appliedUs, long answeredUs, int moves) {
            this.trigger = checkNotNull(trigger, "trigger");
            this.port = checkNotNull(port, "port");
            checkArgument(moves >= 0, "moves must be non-negative");
            checkArgument((moves == 0) == (appliedUs < 0) && (moves == 0) == (answeredUs < 0),
                          "appliedUs and answeredUs are set exactly when flows moved");
            this.sampleUs = sampleUs;
            this.receiptUs = receiptUs;
            this.decisionUs = decisionUs;
            this.appliedUs = appliedUs;
            this.answeredUs = answeredUs;
            this.moves = moves;
        }

        public Trigger trigger() {
            return trigger;
        }

        public ConnectPoint port() {
            return port;
        }

        public long sampleUs() {
            return sampleUs;
        }

        public long receiptUs() {
            return receiptUs;
        }

        public long decisionUs() {
            return decisionUs;
        }

        public long appliedUs() {
            return appliedUs;
        }

        /**
         * Controller time when the fabric confirmed the moves: the rules were in force by then.
         *
         * @return µs, -1 if nothing moved
         */
        public long answeredUs() {
            return answeredUs;
        }

        public int moves() {
            return moves;
        }

        /** Sample captured -> event at controller. */
        public long sampleToReceiptUs() {
            return receiptUs - sampleUs;
        }

        /** Event at controller -> decision made. */
        public long receiptToDecisionUs() {
            return decisionUs - receiptUs;
        }

        /**
         * Decision made -> rules confirmed in force by the fabric, on the controller's clock
         * (only if flows moved). The fabric's own {@code appliedUs} is not used here: when the
         * fabric lags real time its clock runs behind the controller's.
         */
        public long decisionToAppliedUs() {
            return answeredUs - decisionUs;
        }

        /** Sample captured -> rules confirmed in force: the whole loop (only if flows moved). */
        public long sampleToAppliedUs() {
            return answeredUs - sampleUs;
        }
    }

    /** Percentiles of one interval of the loop, µs. */
    public static final class Distribution {
        private final long[] sorted;

        Distribution(long[] values) {
            this.sorted = values.clone();
            Arrays.sort(sorted);
        }

        public int count() {
            return sorted.length;
        }

        /**
         * The value at quantile q by nearest rank.
         *
         * @param q quantile in [0, 1]
         * @return value, or 0 if empty
         */
        public long quantile(double q) {
            checkArgument(q >= 0 && q <= 1, "quantile out of range: %s", q);
            if (sorted.length == 0) {
                return 0;
            }
            int rank = (int) Math.ceil(q * sorted.length);
            return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
        }

        public long max() {
            return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
        }

        /**
         * The values, ascending.
         *
         * @return copy
         */
        public long[] values() {
            return sorted.clone();
        }
    }

    private final int capacity;
    private final List<Entry> entries = new ArrayList<>();
    private long overflow;

    /**
     * A log keeping at most {@code capacity} entries.
     *
     * @param capacity entries kept, positive
     */
    public LoopLatencyLog(int capacity) {
        checkArgument(capacity > 0, "capacity must be positive");
        this.capacity = capacity;
    }

    /**
     * Records a decision.
     *
     * @param e entry
     */
    public synchronized void record(Entry e) {
        checkNotNull(e, "entry");
        if (entries.size() >= capacity) {
            overflow++;
            return;
        }
        entries.add(e);
    }

    /**
     * The recorded entries.
     *
     * @return copy, in recording order
     */
    public synchronized List<Entry> entries() {
        return ImmutableList.copyOf(entries);
    }

    /**
     * Entries not kept because the log was full.
     *
     * @return count
     */
    public synchronized long overflow() {
        return overflow;
    }

    /**
     * Forgets all entries.
     */
    public synchronized void clear() {
        entries.clear();
        overflow = 0;
    }

    /**
     * The distribution of one interval over the entries that moved flows.
     *
     * @param interval e.g. {@code Entry::sampleToAppliedUs}
     * @return distribution
     */
    public synchronized Distribution applied(ToLongFunction<Entry> interval) {
        return new Distribution(entries.stream().filter(e -> e.moves() > 0).mapToLong(interval).toArray());
    }

    /**
     * The distribution of one interval over all entries.
     *
     * @param interval e.g. {@code Entry::receiptToDecisionUs}
     * @return distribution
     */
    public synchronized Distribution all(ToLongFunction<Entry> interval) {
        return new Distribution(entries.stream().mapToLong(interval).toArray());
    }
}
