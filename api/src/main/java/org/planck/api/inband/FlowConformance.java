package org.planck.api.inband;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.telemetry.PintHopLatency;

import java.util.List;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One flow's path conformance: the path PINT traced (latest {@code PINT_PATH}) against the path
 * the routing plan puts it on, the flow's latest move, and the verdict. Times are controller
 * wall-clock milliseconds; {@link #NONE} where there is nothing to say.
 */
public final class FlowConformance {
    /** Absent time, index or count. */
    public static final long NONE = -1;

    private final FlowKey flow;
    private final ConformanceStatus status;
    private final List<DeviceId> tracedPath;
    private final long tracedMillis;
    private final long tracePackets;
    private final long traces;
    private final int plannedIndex;
    private final List<DeviceId> plannedPath;
    private final long movedMillis;
    private final int movedFrom;
    private final int movedTo;
    private final long moves;
    private final long statusSinceMillis;
    private final List<PintHopLatency> hopLatencies;

    private FlowConformance(Builder b) {
        this.flow = checkNotNull(b.flow, "flow");
        this.status = checkNotNull(b.status, "status");
        this.tracedPath = ImmutableList.copyOf(b.tracedPath);
        this.tracedMillis = b.tracedMillis;
        this.tracePackets = b.tracePackets;
        this.traces = b.traces;
        this.plannedIndex = b.plannedIndex;
        this.plannedPath = ImmutableList.copyOf(b.plannedPath);
        this.movedMillis = b.movedMillis;
        this.movedFrom = b.movedFrom;
        this.movedTo = b.movedTo;
        this.moves = b.moves;
        this.statusSinceMillis = b.statusSinceMillis;
        this.hopLatencies = ImmutableList.copyOf(b.hopLatencies);
    }

    /**
     * A builder.
     *
     * @param flow   the flow
     * @param status the verdict
     * @return builder with every optional field absent
     */
    public static Builder builder(FlowKey flow, ConformanceStatus status) {
        return new Builder(flow, status);
    }

    public FlowKey flow() {
        return flow;
    }

    public ConformanceStatus status() {
        return status;
    }

    /**
     * The latest traced path, first hop first.
     *
     * @return switches, empty if the flow was never traced
     */
    public List<DeviceId> tracedPath() {
        return tracedPath;
    }

    /**
     * When the latest trace reached the controller.
     *
     * @return ms since the epoch, or {@link #NONE}
     */
    public long tracedMillis() {
        return tracedMillis;
    }

    /**
     * Packets the collector needed for the latest trace.
     *
     * @return packets, or {@link #NONE}
     */
    public long tracePackets() {
        return tracePackets;
    }

    /**
     * Traces received for the flow.
     *
     * @return count
     */
    public long traces() {
        return traces;
    }

    /**
     * The planned shadow path index.
     *
     * @return index, or {@link #NONE} if unplanned
     */
    public int plannedIndex() {
        return plannedIndex;
    }

    /**
     * The planned path, first hop first.
     *
     * @return switches, empty if unplanned
     */
    public List<DeviceId> plannedPath() {
        return plannedPath;
    }

    /**
     * When the flow's latest move was submitted.
     *
     * @return ms since the epoch, or {@link #NONE} if never moved
     */
    public long movedMillis() {
        return movedMillis;
    }

    public int movedFrom() {
        return movedFrom;
    }

    public int movedTo() {
        return movedTo;
    }

    public long moves() {
        return moves;
    }

    /**
     * Since when the status holds (for MOVED_CONFIRMED: when the confirming trace arrived).
     *
     * @return ms since the epoch
     */
    public long statusSinceMillis() {
        return statusSinceMillis;
    }

    /**
     * For a confirmed move: milliseconds from the move to the trace that confirmed it.
     *
     * @return ms, or {@link #NONE}
     */
    public long confirmationMillis() {
        return status == ConformanceStatus.MOVED_CONFIRMED ? tracedMillis - movedMillis : NONE;
    }

    /**
     * Latest latency estimate per hop, by hop.
     *
     * @return estimates
     */
    public List<PintHopLatency> hopLatencies() {
        return hopLatencies;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FlowConformance)) {
            return false;
        }
        FlowConformance c = (FlowConformance) o;
        return tracedMillis == c.tracedMillis && tracePackets == c.tracePackets && traces == c.traces
                && plannedIndex == c.plannedIndex && movedMillis == c.movedMillis && movedFrom == c.movedFrom
                && movedTo == c.movedTo && moves == c.moves && statusSinceMillis == c.statusSinceMillis
                && flow.equals(c.flow) && status == c.status && tracedPath.equals(c.tracedPath)
                && plannedPath.equals(c.plannedPath) && hopLatencies.equals(c.hopLatencies);
    }

    @Override
    public int hashCode() {
        return Objects.hash(flow, status, tracedPath, tracedMillis, plannedIndex, movedMillis, statusSinceMillis);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("flow", flow).add("status", status)
                .add("traced", tracedPath).add("planned", plannedPath).add("plannedIndex", plannedIndex)
                .add("movedMillis", movedMillis).toString();
    }

    /** Builds a {@link FlowConformance}. */
    public static final class Builder {
        private final FlowKey flow;
        private final ConformanceStatus status;
        private List<DeviceId> tracedPath = ImmutableList.of();
        private long tracedMillis = NONE;
        private long tracePackets = NONE;
        private long traces;
        private int plannedIndex = (int) NONE;
        private List<DeviceId> plannedPath = ImmutableList.of();
        private long movedMillis = NONE;
        private int movedFrom = (int) NONE;
        private int movedTo = (int) NONE;
        private long moves;
        private long statusSinceMillis = NONE;
        private List<PintHopLatency> hopLatencies = ImmutableList.of();

        private Builder(FlowKey flow, ConformanceStatus status) {
            this.flow = flow;
            this.status = status;
        }

        public Builder traced(List<DeviceId> path, long millis, long packets, long count) {
            this.tracedPath = path;
            this.tracedMillis = millis;
            this.tracePackets = packets;
            this.traces = count;
            return this;
        }

        public Builder planned(int index, List<DeviceId> path) {
            this.plannedIndex = index;
            this.plannedPath = path;
            return this;
        }

        public Builder moved(long millis, int from, int to, long count) {
            this.movedMillis = millis;
            this.movedFrom = from;
            this.movedTo = to;
            this.moves = count;
            return this;
        }

        public Builder statusSince(long millis) {
            this.statusSinceMillis = millis;
            return this;
        }

        public Builder hopLatencies(List<PintHopLatency> latencies) {
            this.hopLatencies = latencies;
            return this;
        }

        public FlowConformance build() {
            return new FlowConformance(this);
        }
    }
}
