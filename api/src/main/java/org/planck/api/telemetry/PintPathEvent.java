package org.planck.api.telemetry;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;

import java.util.List;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The path a collector traced for a flow from PINT digests ({@code PINT_PATH},
 * telemetry-events-v3): the switches the flow's packets crossed, first hop first.
 */
public final class PintPathEvent {
    /** Why the collector sent it. */
    public enum Cause {
        /** The flow's first decoded path. */
        NEW_KEY,
        /** Digests contradicted the previous decoded path and the new one was decoded. */
        PATH_CHANGE
    }

    /** Longest path PINT traces (the decoder's bound). */
    public static final int MAX_HOPS = 64;

    private final FlowKey flow;
    private final List<DeviceId> path;
    private final long packets;
    private final Cause cause;
    private final long timeUs;

    /**
     * Creates an event.
     *
     * @param flow    the flow's 5-tuple
     * @param path    1..{@link #MAX_HOPS} switches, first hop first
     * @param packets packets the trace took, >= 1
     * @param cause   why it was sent
     * @param timeUs  when the collector decoded it, µs since the epoch
     */
    public PintPathEvent(FlowKey flow, List<DeviceId> path, long packets, Cause cause, long timeUs) {
        this.flow = checkNotNull(flow, "flow");
        this.path = ImmutableList.copyOf(path);
        this.cause = checkNotNull(cause, "cause");
        checkArgument(!this.path.isEmpty() && this.path.size() <= MAX_HOPS, "path must have 1..%s hops", MAX_HOPS);
        checkArgument(packets >= 1, "packets must be >= 1");
        this.packets = packets;
        this.timeUs = timeUs;
    }

    public FlowKey flow() {
        return flow;
    }

    public List<DeviceId> path() {
        return path;
    }

    public long packets() {
        return packets;
    }

    public Cause cause() {
        return cause;
    }

    public long timeUs() {
        return timeUs;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PintPathEvent)) {
            return false;
        }
        PintPathEvent e = (PintPathEvent) o;
        return packets == e.packets && timeUs == e.timeUs && flow.equals(e.flow) && path.equals(e.path)
                && cause == e.cause;
    }

    @Override
    public int hashCode() {
        return Objects.hash(flow, path, packets, cause, timeUs);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("flow", flow).add("path", path).add("packets", packets)
                .add("cause", cause).toString();
    }
}
