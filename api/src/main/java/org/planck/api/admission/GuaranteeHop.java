package org.planck.api.admission;

import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One switch on a guaranteed flow's path and the port the flow leaves it by, with that port's
 * capacity (the transmission of one packet there is part of the bound).
 */
public final class GuaranteeHop {
    private final DeviceId device;
    private final PortNumber outPort;
    private final long outCapacityBps;

    private GuaranteeHop(DeviceId device, PortNumber outPort, long outCapacityBps) {
        this.device = device;
        this.outPort = outPort;
        this.outCapacityBps = outCapacityBps;
    }

    /**
     * A hop.
     *
     * @param device         switch
     * @param outPort        egress port
     * @param outCapacityBps egress capacity, bits/s, > 0
     * @return the hop
     */
    public static GuaranteeHop of(DeviceId device, PortNumber outPort, long outCapacityBps) {
        checkNotNull(device, "device");
        checkNotNull(outPort, "outPort");
        checkArgument(outCapacityBps > 0, "capacity must be > 0");
        return new GuaranteeHop(device, outPort, outCapacityBps);
    }

    public DeviceId device() {
        return device;
    }

    public PortNumber outPort() {
        return outPort;
    }

    public long outCapacityBps() {
        return outCapacityBps;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof GuaranteeHop)) {
            return false;
        }
        GuaranteeHop h = (GuaranteeHop) o;
        return device.equals(h.device) && outPort.equals(h.outPort) && outCapacityBps == h.outCapacityBps;
    }

    @Override
    public int hashCode() {
        return Objects.hash(device, outPort, outCapacityBps);
    }

    @Override
    public String toString() {
        return device + "/" + outPort;
    }
}
