package org.planck.api.telemetry;

import com.google.common.base.MoreObjects;
import org.onosproject.net.ConnectPoint;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A collector's notice that a port became congested or cleared ({@code PORT_CONGESTION}).
 */
public final class PortCongestionNotice implements TelemetryEvent {
    private final ConnectPoint port;
    private final CongestionState state;
    private final double utilization;
    private final double loadBps;
    private final double capacityBps;
    private final long sampleUs;
    private final long timeUs;

    /**
     * Creates a congestion notice.
     *
     * @param port        switch port
     * @param state       CONGESTED or CLEARED
     * @param utilization load / capacity, finite, >= 0
     * @param loadBps     estimated load in bits per second, finite, >= 0
     * @param capacityBps port capacity in bits per second, finite, > 0
     * @param sampleUs    capture time of the triggering sample, µs since epoch
     * @param timeUs      decision time at the collector, µs since epoch
     */
    public PortCongestionNotice(ConnectPoint port, CongestionState state, double utilization, double loadBps,
                                double capacityBps, long sampleUs, long timeUs) {
        this.port = checkNotNull(port, "port");
        this.state = checkNotNull(state, "state");
        checkArgument(Double.isFinite(utilization) && utilization >= 0, "utilization must be finite and >= 0");
        checkArgument(Double.isFinite(loadBps) && loadBps >= 0, "loadBps must be finite and >= 0");
        checkArgument(Double.isFinite(capacityBps) && capacityBps > 0, "capacityBps must be finite and > 0");
        this.utilization = utilization;
        this.loadBps = loadBps;
        this.capacityBps = capacityBps;
        this.sampleUs = sampleUs;
        this.timeUs = timeUs;
    }

    @Override
    public ConnectPoint port() {
        return port;
    }

    public CongestionState state() {
        return state;
    }

    public double utilization() {
        return utilization;
    }

    public double loadBps() {
        return loadBps;
    }

    public double capacityBps() {
        return capacityBps;
    }

    public long sampleUs() {
        return sampleUs;
    }

    public long timeUs() {
        return timeUs;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PortCongestionNotice)) {
            return false;
        }
        PortCongestionNotice n = (PortCongestionNotice) o;
        return Double.compare(utilization, n.utilization) == 0 && Double.compare(loadBps, n.loadBps) == 0
                && Double.compare(capacityBps, n.capacityBps) == 0 && sampleUs == n.sampleUs
                && timeUs == n.timeUs && port.equals(n.port) && state == n.state;
    }

    @Override
    public int hashCode() {
        return Objects.hash(port, state, utilization, loadBps, capacityBps, sampleUs, timeUs);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("port", port).add("state", state)
                .add("utilization", utilization).toString();
    }
}
