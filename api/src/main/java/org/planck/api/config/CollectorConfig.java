package org.planck.api.config;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import org.onlab.packet.IpAddress;
import org.onosproject.net.DeviceId;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A Planck collector: where its control endpoint listens and which switches it monitors.
 */
public final class CollectorConfig {
    private final String id;
    private final IpAddress address;
    private final int controlPort;
    private final List<ServedSwitch> switches;

    /**
     * Creates a collector description.
     *
     * @param id          collector id, as the collector names itself in telemetry batches
     * @param address     address of the collector's control endpoint
     * @param controlPort TCP port of the control endpoint
     * @param switches    switches whose mirror ports feed this collector
     */
    public CollectorConfig(String id, IpAddress address, int controlPort, List<ServedSwitch> switches) {
        this.id = checkNotNull(id);
        this.address = checkNotNull(address);
        this.controlPort = controlPort;
        this.switches = ImmutableList.copyOf(switches);
    }

    public String id() {
        return id;
    }

    public IpAddress address() {
        return address;
    }

    public int controlPort() {
        return controlPort;
    }

    public List<ServedSwitch> switches() {
        return switches;
    }

    /**
     * The served switch entry for a device.
     *
     * @param deviceId device
     * @return the entry if this collector serves the device
     */
    public Optional<ServedSwitch> servedSwitch(DeviceId deviceId) {
        return switches.stream().filter(s -> s.deviceId().equals(deviceId)).findFirst();
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof CollectorConfig)) {
            return false;
        }
        CollectorConfig that = (CollectorConfig) o;
        return controlPort == that.controlPort && id.equals(that.id)
                && address.equals(that.address) && switches.equals(that.switches);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, address, controlPort, switches);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("id", id).add("address", address)
                .add("controlPort", controlPort).add("switches", switches).toString();
    }
}
