package org.planck.api;

import org.onosproject.net.PortNumber;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A monitored port and its line rate, which congestion thresholds are relative to.
 */
public final class PortCapacity {
    private final PortNumber port;
    private final long capacityBps;

    /**
     * Creates a port capacity.
     *
     * @param port        port number
     * @param capacityBps line rate in bits per second, >= 0 (0 if the switch does not report it)
     */
    public PortCapacity(PortNumber port, long capacityBps) {
        checkArgument(capacityBps >= 0, "capacity must be >= 0");
        this.port = checkNotNull(port);
        this.capacityBps = capacityBps;
    }

    public PortNumber port() {
        return port;
    }

    public long capacityBps() {
        return capacityBps;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PortCapacity)) {
            return false;
        }
        PortCapacity that = (PortCapacity) o;
        return capacityBps == that.capacityBps && port.equals(that.port);
    }

    @Override
    public int hashCode() {
        return Objects.hash(port, capacityBps);
    }

    @Override
    public String toString() {
        return port + "@" + capacityBps + "bps";
    }
}
