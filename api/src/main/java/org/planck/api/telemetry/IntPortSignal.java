package org.planck.api.telemetry;

import com.google.common.base.MoreObjects;
import org.onosproject.net.ConnectPoint;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * An INT-derived signal about a switch egress port ({@code INT_PORT}, telemetry-events-v2):
 * the latest queue occupancy, hop latency or egress utilisation an INT report carried, sent
 * when the collector's interval detection fired for it.
 */
public final class IntPortSignal implements TelemetryEvent {
    /** What the value measures. */
    public enum Signal {
        /** Queue occupancy (the switch's unit, 24 bits); {@link #queue()} names the queue. */
        QUEUE_OCCUPANCY,
        /** Hop latency at the switch, nanoseconds. */
        HOP_LATENCY,
        /** Egress port tx utilisation, as the switch reports it. */
        LINK_UTILIZATION
    }

    /** Why the collector sent it. */
    public enum Cause {
        NEW_KEY, PATH_CHANGE, INTERVAL, PERIODIC
    }

    /** Largest value (a 32-bit INT field). */
    public static final long MAX_VALUE = 0xffffffffL;

    private final ConnectPoint port;
    private final Signal signal;
    private final long value;
    private final int queue;
    private final Cause cause;
    private final long reportUs;

    /**
     * Creates a signal.
     *
     * @param port     switch egress port
     * @param signal   what the value measures
     * @param value    0 .. {@link #MAX_VALUE}
     * @param queue    queue id 0..255 for QUEUE_OCCUPANCY, -1 otherwise
     * @param cause    why it was sent
     * @param reportUs time of the INT report, µs since epoch
     */
    public IntPortSignal(ConnectPoint port, Signal signal, long value, int queue, Cause cause, long reportUs) {
        this.port = checkNotNull(port, "port");
        this.signal = checkNotNull(signal, "signal");
        this.cause = checkNotNull(cause, "cause");
        checkArgument(value >= 0 && value <= MAX_VALUE, "value must be in 0..%s", MAX_VALUE);
        checkArgument(signal == Signal.QUEUE_OCCUPANCY ? queue >= 0 && queue <= 255 : queue == -1,
                "queue must be 0..255 for QUEUE_OCCUPANCY and -1 otherwise");
        this.value = value;
        this.queue = queue;
        this.reportUs = reportUs;
    }

    @Override
    public ConnectPoint port() {
        return port;
    }

    public Signal signal() {
        return signal;
    }

    public long value() {
        return value;
    }

    public int queue() {
        return queue;
    }

    public Cause cause() {
        return cause;
    }

    public long reportUs() {
        return reportUs;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof IntPortSignal)) {
            return false;
        }
        IntPortSignal s = (IntPortSignal) o;
        return value == s.value && queue == s.queue && reportUs == s.reportUs && port.equals(s.port)
                && signal == s.signal && cause == s.cause;
    }

    @Override
    public int hashCode() {
        return Objects.hash(port, signal, value, queue, cause, reportUs);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("port", port).add("signal", signal).add("value", value)
                .add("queue", queue).add("cause", cause).toString();
    }
}
