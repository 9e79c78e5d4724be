package org.planck.api.telemetry;

import com.google.common.base.MoreObjects;
import org.onosproject.event.AbstractEvent;
import org.onosproject.net.ConnectPoint;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A port became congested or cleared. Carries the monotonic time the triggering telemetry was
 * received, so reactions (traffic engineering) can measure their latency from receipt.
 */
public class PlanckCongestionEvent extends AbstractEvent<PlanckCongestionEvent.Type, ConnectPoint> {

    /** Congestion transitions. */
    public enum Type {
        /** The port crossed the congestion threshold. */
        CONGESTED,
        /** The port fell below threshold minus hysteresis. */
        CLEARED
    }

    private final CongestionSource source;
    private final double utilization;
    private final long receivedNanos;

    /**
     * Creates an event.
     *
     * @param type          transition
     * @param port          the port
     * @param source        who decided
     * @param utilization   utilisation at the decision, 0 if unknown
     * @param receivedNanos {@link System#nanoTime()} when the triggering telemetry was received
     */
    public PlanckCongestionEvent(Type type, ConnectPoint port, CongestionSource source, double utilization,
                                 long receivedNanos) {
        super(type, port);
        this.source = checkNotNull(source, "source");
        this.utilization = utilization;
        this.receivedNanos = receivedNanos;
    }

    public CongestionSource source() {
        return source;
    }

    public double utilization() {
        return utilization;
    }

    public long receivedNanos() {
        return receivedNanos;
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("type", type()).add("port", subject())
                .add("source", source).add("utilization", utilization).toString();
    }
}
