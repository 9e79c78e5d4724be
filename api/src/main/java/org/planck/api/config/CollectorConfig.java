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
    private final String controlUsername;
    private final String controlPassword;

    /**
     * Creates a collector description.
     *
     * @param id          collector id, as the collector names itself in telemetry batches
     * @param address     address of the collector's control endpoint
     * @param controlPort TCP port of the control endpoint
     * @param switches    switches whose mirror ports feed this collector
     */
    public CollectorConfig(String id, IpAddress address, int controlPort, List<ServedSwitch> switches) {
        this(id, address, controlPort, switches, null, null);
    }

    /**
     * Creates a collector description whose control endpoint requires credentials.
     *
     * @param id              collector id
     * @param address         address of the collector's control endpoint
     * @param controlPort     TCP port of the control endpoint
     * @param switches        switches whose mirror ports feed this collector
     * @param controlUsername basic-auth user of the control endpoint, or null for none
     * @param controlPassword its password, or null (both or neither)
     */
    public CollectorConfig(String id, IpAddress address, int controlPort, List<ServedSwitch> switches,
                           String controlUsername, String controlPassword) {
        this.id = checkNotNull(id);
        this.address = checkNotNull(address);
        this.controlPort = controlPort;
        this.switches = ImmutableList.copyOf(switches);
        if ((controlUsername == null) != (controlPassword == null)) {
            throw new IllegalArgumentException("control username and password go together");
        }
        this.controlUsername = controlUsername;
        this.controlPassword = controlPassword;
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
     * The value of the Authorization header the control endpoint requires.
     *
     * @return {@code Basic base64(user:password)}, or empty if no credentials are configured
     */
    public Optional<String> controlAuthorization() {
        if (controlUsername == null) {
            return Optional.empty();
        }
        String pair = controlUsername + ":" + controlPassword;
        return Optional.of("Basic " + java.util.Base64.getEncoder()
                .encodeToString(pair.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
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
                && address.equals(that.address) && switches.equals(that.switches)
                && Objects.equals(controlUsername, that.controlUsername)
                && Objects.equals(controlPassword, that.controlPassword);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, address, controlPort, switches, controlUsername, controlPassword);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("id", id).add("address", address)
                .add("controlPort", controlPort).add("switches", switches)
                .add("controlAuth", controlUsername != null).toString();
    }
}
