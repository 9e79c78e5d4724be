package org.planck.api.config;

import com.google.common.base.MoreObjects;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A switch whose traffic a collector monitors: its oversubscribed mirror port and the RSPAN
 * VLAN that tags its samples.
 */
public final class ServedSwitch {
    private final DeviceId deviceId;
    private final PortNumber mirrorPort;
    private final VlanId rspanVlan;
    private final String bridge;

    /**
     * Creates a served switch.
     *
     * @param deviceId   the switch
     * @param mirrorPort port that receives the mirrored traffic (never itself monitored)
     * @param rspanVlan  VLAN carried by this switch's samples
     * @param bridge     OVS bridge name for OVSDB mirroring, or null to use the device's LOCAL port name
     */
    public ServedSwitch(DeviceId deviceId, PortNumber mirrorPort, VlanId rspanVlan, String bridge) {
        this.deviceId = checkNotNull(deviceId);
        this.mirrorPort = checkNotNull(mirrorPort);
        this.rspanVlan = checkNotNull(rspanVlan);
        this.bridge = bridge;
    }

    public DeviceId deviceId() {
        return deviceId;
    }

    public PortNumber mirrorPort() {
        return mirrorPort;
    }

    public VlanId rspanVlan() {
        return rspanVlan;
    }

    /**
     * OVS bridge name configured for OVSDB mirroring.
     *
     * @return bridge name if configured
     */
    public Optional<String> bridge() {
        return Optional.ofNullable(bridge);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ServedSwitch)) {
            return false;
        }
        ServedSwitch that = (ServedSwitch) o;
        return deviceId.equals(that.deviceId) && mirrorPort.equals(that.mirrorPort)
                && rspanVlan.equals(that.rspanVlan) && Objects.equals(bridge, that.bridge);
    }

    @Override
    public int hashCode() {
        return Objects.hash(deviceId, mirrorPort, rspanVlan, bridge);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).omitNullValues()
                .add("device", deviceId).add("mirrorPort", mirrorPort)
                .add("rspanVlan", rspanVlan).add("bridge", bridge).toString();
    }
}
