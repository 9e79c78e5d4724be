package org.planck.api.telemetry;

import com.google.common.base.MoreObjects;
import org.onosproject.net.ConnectPoint;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A port's load as the controller sees it: the sum of the rates of the flows placed on it,
 * against the port's capacity, and whether the port is congested.
 */
public final class PortLoad {
    private final ConnectPoint port;
    private final long loadBps;
    private final long capacityBps;
    private final int flowCount;
    private final boolean congested;

    /**
     * Creates a port load.
     *
     * @param port        the port
     * @param loadBps     sum of flow rates, bits per second
     * @param capacityBps port capacity in bits per second, 0 if unknown
     * @param flowCount   flows placed on the port
     * @param congested   whether the port is congested (by a collector notice or the load view)
     */
    public PortLoad(ConnectPoint port, long loadBps, long capacityBps, int flowCount, boolean congested) {
        this.port = checkNotNull(port, "port");
        this.loadBps = loadBps;
        this.capacityBps = capacityBps;
        this.flowCount = flowCount;
        this.congested = congested;
    }

    public ConnectPoint port() {
        return port;
    }

    public long loadBps() {
        return loadBps;
    }

    public long capacityBps() {
        return capacityBps;
    }

    public int flowCount() {
        return flowCount;
    }

    public boolean congested() {
        return congested;
    }

    /**
     * Load over capacity; 0 when the capacity is unknown.
     *
     * @return utilisation, may exceed 1 briefly
     */
    public double utilization() {
        return capacityBps > 0 ? (double) loadBps / capacityBps : 0.0;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PortLoad)) {
            return false;
        }
        PortLoad l = (PortLoad) o;
        return loadBps == l.loadBps && capacityBps == l.capacityBps && flowCount == l.flowCount
                && congested == l.congested && port.equals(l.port);
    }

    @Override
    public int hashCode() {
        return Objects.hash(port, loadBps, capacityBps, flowCount, congested);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("port", port).add("loadBps", loadBps)
                .add("capacityBps", capacityBps).add("flows", flowCount).add("congested", congested).toString();
    }
}
