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
        POLL,
        /** INT queue occupancy of the port crossed the queue threshold (congestion signal INT or both). */
        INT_QUEUE
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
        private final Stages stages;

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
            this(trigger, port, sampleUs, receiptUs, decisionUs, appliedUs, answeredUs, moves, Stages.NONE);
        }

        /**
         * An entry with the stages the other constructor leaves unknown.
         *
         * @param trigger    what started the decision
         * @param port       the congested port
         * @param sampleUs   capture time of the triggering sample (or counter time when polling)
         * @param receiptUs  controller receipt time
         * @param decisionUs time the moves were decided
         * @param appliedUs  fabric time from which the moves are in force, -1 if none
         * @param answeredUs controller time when the fabric confirmed the moves, -1 if none
         * @param moves      number of flows moved
         * @param stages     the optional stage times
         */
        public Entry(Trigger trigger, ConnectPoint port, long sampleUs, long receiptUs, long decisionUs,
                     long appliedUs, long answeredUs, int moves, Stages stages) {
            this.stages = checkNotNull(stages, "stages");
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

        public Stages stages() {
            return stages;
        }

        /**
         * Rules handed to the fabric -> its answer (the fabric's round trip; it answers once the
         * rules are in force).
         *
         * @return µs, -1 if unknown
         */
        public long submittedToAnsweredUs() {
            return stages.submittedUs < 0 || answeredUs < 0 ? -1 : answeredUs - stages.submittedUs;
        }

        /**
         * Decision -> rules handed to the fabric (waiting for the round and the installer).
         *
         * @return µs, -1 if unknown
         */
        public long decisionToSubmittedUs() {
            return stages.submittedUs < 0 ? -1 : stages.submittedUs - decisionUs;
        }

        /**
         * Sample captured -> the collector's detection (its notice's timeUs).
         *
         * @return µs, -1 if unknown
         */
        public long sampleToDetectUs() {
            return stages.detectUs < 0 ? -1 : stages.detectUs - sampleUs;
        }

        /**
         * Detection -> the collector's export of the batch carrying it (its sentUs).
         *
         * @return µs, -1 if unknown
         */
        public long detectToSentUs() {
            return stages.detectUs < 0 || stages.sentUs < 0 ? -1 : stages.sentUs - stages.detectUs;
        }

        /**
         * Batch sent by the collector -> received by the controller (the HTTP hop).
         *
         * @return µs, -1 if unknown
         */
        public long sentToReceiptUs() {
            return stages.sentUs < 0 ? -1 : receiptUs - stages.sentUs;
        }

        /**
         * The loop as a traffic change sees it: from the start of the measurement window the
         * decision was based on (a poll's counters cover the whole poll interval, so a change
         * at its start waits for the interval too) to the rules in force.
         *
         * @return µs (only if flows moved)
         */
        public long windowStartToAppliedUs() {
            return sampleToAppliedUs() + stages.windowUs;
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

    /**
     * Times of the loop's stages that only some triggers have; -1 where unknown. µs since the
     * epoch, except {@code windowUs}, a length.
     */
    public static final class Stages {
        /** Nothing known beyond the entry's own times. */
        public static final Stages NONE = new Stages(-1, -1, -1, 0);

        private final long detectUs;
        private final long sentUs;
        private final long submittedUs;
        private final long windowUs;

        /**
         * Stage times.
         *
         * @param detectUs    when the collector detected the congestion (notice's timeUs), or -1
         * @param sentUs      when the collector sent the batch (its sentUs), or -1
         * @param submittedUs when the controller handed the rules to the fabric, or -1
         * @param windowUs    length of the measurement window the decision used (a poll's
         *                    interval), 0 for a sample
         */
        public Stages(long detectUs, long sentUs, long submittedUs, long windowUs) {
            checkArgument(windowUs >= 0, "window must be >= 0");
            this.detectUs = detectUs;
            this.sentUs = sentUs;
            this.submittedUs = submittedUs;
            this.windowUs = windowUs;
        }

        /**
         * The same stages with the time the rules were handed to the fabric.
         *
         * @param us controller time
         * @return new stages
         */
        public Stages submitted(long us) {
            return new Stages(detectUs, sentUs, us, windowUs);
        }

        public long detectUs() {
            return detectUs;
        }

        public long sentUs() {
            return sentUs;
        }

        public long submittedUs() {
            return submittedUs;
        }

        public long windowUs() {
            return windowUs;
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
     * The distribution of an optional interval (-1 where unknown) over the entries that moved
     * flows and know it.
     *
     * @param interval e.g. {@code Entry::sentToReceiptUs}
     * @return distribution
     */
    public synchronized Distribution appliedKnown(ToLongFunction<Entry> interval) {
        return new Distribution(entries.stream().filter(e -> e.moves() > 0).mapToLong(interval)
                                        .filter(v -> v >= 0).toArray());
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
