package org.planck.app.telemetry.algo;

import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Identity of a flow record: a flow as seen at one switch. A flow crosses several switches,
 * each reporting it on its own egress port, so every switch's view is kept.
 */
public final class FlowAtSwitch {
    private final FlowKey flow;
    private final DeviceId device;

    /**
     * Creates the key.
     *
     * @param flow   the flow
     * @param device the switch
     */
    public FlowAtSwitch(FlowKey flow, DeviceId device) {
        this.flow = checkNotNull(flow, "flow");
        this.device = checkNotNull(device, "device");
    }

    public FlowKey flow() {
        return flow;
    }

    public DeviceId device() {
        return device;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FlowAtSwitch)) {
            return false;
        }
        FlowAtSwitch k = (FlowAtSwitch) o;
        return flow.equals(k.flow) && device.equals(k.device);
    }

    @Override
    public int hashCode() {
        return Objects.hash(flow, device);
    }

    @Override
    public String toString() {
        return flow + "@" + device;
    }
}
