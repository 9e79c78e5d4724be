package org.planck.api.fabric;

import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One hop of a path: the switch and the port the frame leaves it on.
 */
public final class PathHop {
    private final DeviceId device;
    private final PortNumber outPort;

    private PathHop(DeviceId device, PortNumber outPort) {
        this.device = checkNotNull(device, "device");
        this.outPort = checkNotNull(outPort, "outPort");
    }

    /**
     * Creates a hop.
     *
     * @param device  switch
     * @param outPort egress port
     * @return the hop
     */
    public static PathHop of(DeviceId device, PortNumber outPort) {
        return new PathHop(device, outPort);
    }

    public DeviceId device() {
        return device;
    }

    public PortNumber outPort() {
        return outPort;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PathHop)) {
            return false;
        }
        PathHop h = (PathHop) o;
        return device.equals(h.device) && outPort.equals(h.outPort);
    }

    @Override
    public int hashCode() {
        return Objects.hash(device, outPort);
    }

    @Override
    public String toString() {
        return device + "/" + outPort;
    }
}
