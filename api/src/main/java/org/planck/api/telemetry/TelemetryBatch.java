package org.planck.api.telemetry;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;

import java.util.List;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A validated batch of telemetry events from one collector, in the order they were sent.
 */
public final class TelemetryBatch {
    /** Schema version of batches without INT signals (what v1 readers accept). */
    public static final int VERSION = 1;
    /** Schema version that adds INT_PORT events (telemetry-events-v2); also accepted. */
    public static final int VERSION_INT = 2;
    /** Schema version that adds PINT_PATH and PINT_HOP_LATENCY events (telemetry-events-v3); also accepted. */
    public static final int VERSION_PINT = 3;
    /** Most events one batch may carry. */
    public static final int MAX_EVENTS = 10_000;

    private final String collector;
    private final long seq;
    private final long sentUs;
    private final List<TelemetryEvent> events;
    private final List<IntPortSignal> intSignals;
    private final List<PintPathEvent> pintPaths;
    private final List<PintHopLatency> pintLatencies;

    /**
     * Creates a batch.
     *
     * @param collector collector id, not empty
     * @param seq       per-collector batch sequence number, >= 0
     * @param sentUs    send time, µs since epoch
     * @param events    at most {@link #MAX_EVENTS} events
     */
    public TelemetryBatch(String collector, long seq, long sentUs, List<? extends TelemetryEvent> events) {
        this(collector, seq, sentUs, events, ImmutableList.of());
    }

    /**
     * Creates a batch with INT port signals (a version-2 batch when there are any). The
     * signals are kept apart from {@link #events()}, so consumers of v1 events see no change.
     *
     * @param collector  collector id, not empty
     * @param seq        per-collector batch sequence number, >= 0
     * @param sentUs     send time, µs since epoch
     * @param events     mirror-derived events
     * @param intSignals INT_PORT events; with events, at most {@link #MAX_EVENTS}
     */
    public TelemetryBatch(String collector, long seq, long sentUs, List<? extends TelemetryEvent> events,
                          List<IntPortSignal> intSignals) {
        this(collector, seq, sentUs, events, intSignals, ImmutableList.of(), ImmutableList.of());
    }

    /**
     * Creates a batch with PINT events (a version-3 batch when there are any). Like INT
     * signals, they are kept apart from {@link #events()}.
     *
     * @param collector     collector id, not empty
     * @param seq           per-collector batch sequence number, >= 0
     * @param sentUs        send time, µs since epoch
     * @param events        mirror-derived events
     * @param intSignals    INT_PORT events
     * @param pintPaths     PINT_PATH events
     * @param pintLatencies PINT_HOP_LATENCY events; all kinds together at most {@link #MAX_EVENTS}
     */
    public TelemetryBatch(String collector, long seq, long sentUs, List<? extends TelemetryEvent> events,
                          List<IntPortSignal> intSignals, List<PintPathEvent> pintPaths,
                          List<PintHopLatency> pintLatencies) {
        this.collector = checkNotNull(collector, "collector");
        checkArgument(events.size() + intSignals.size() + pintPaths.size() + pintLatencies.size() <= MAX_EVENTS,
                "more than %s events", MAX_EVENTS);
        this.pintPaths = ImmutableList.copyOf(pintPaths);
        this.pintLatencies = ImmutableList.copyOf(pintLatencies);
        checkArgument(events.stream().noneMatch(e -> e instanceof IntPortSignal),
                "INT signals go in intSignals, not events");
        this.intSignals = ImmutableList.copyOf(intSignals);
        checkArgument(!collector.isEmpty(), "collector must not be empty");
        checkArgument(seq >= 0, "seq must be >= 0");
        checkArgument(events.size() <= MAX_EVENTS, "more than %s events", MAX_EVENTS);
        this.seq = seq;
        this.sentUs = sentUs;
        this.events = ImmutableList.copyOf(events);
    }

    public String collector() {
        return collector;
    }

    public long seq() {
        return seq;
    }

    public long sentUs() {
        return sentUs;
    }

    public List<TelemetryEvent> events() {
        return events;
    }

    /**
     * INT-derived port signals (telemetry-events-v2 {@code INT_PORT} events).
     *
     * @return signals in the order sent
     */
    public List<IntPortSignal> intSignals() {
        return intSignals;
    }

    /**
     * PINT-traced flow paths (telemetry-events-v3 {@code PINT_PATH} events).
     *
     * @return paths in the order sent
     */
    public List<PintPathEvent> pintPaths() {
        return pintPaths;
    }

    /**
     * PINT per-hop latency estimates (telemetry-events-v3 {@code PINT_HOP_LATENCY} events).
     *
     * @return estimates in the order sent
     */
    public List<PintHopLatency> pintLatencies() {
        return pintLatencies;
    }

    /**
     * The schema version this batch needs: 3 with PINT events, else 2 with INT signals, else 1.
     *
     * @return version
     */
    public int version() {
        if (!pintPaths.isEmpty() || !pintLatencies.isEmpty()) {
            return VERSION_PINT;
        }
        return intSignals.isEmpty() ? VERSION : VERSION_INT;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TelemetryBatch)) {
            return false;
        }
        TelemetryBatch b = (TelemetryBatch) o;
        return seq == b.seq && sentUs == b.sentUs && collector.equals(b.collector) && events.equals(b.events)
                && intSignals.equals(b.intSignals) && pintPaths.equals(b.pintPaths)
                && pintLatencies.equals(b.pintLatencies);
    }

    @Override
    public int hashCode() {
        return Objects.hash(collector, seq, sentUs, events, intSignals, pintPaths, pintLatencies);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("collector", collector).add("seq", seq)
                .add("events", events.size()).add("intSignals", intSignals.size())
                .add("pintPaths", pintPaths.size()).add("pintLatencies", pintLatencies.size()).toString();
    }
}
