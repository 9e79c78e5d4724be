package org.planck.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The mirroring of one switch into its oversubscribed mirror port, and how it is realised.
 */
public final class MirrorSession {

    /** Whether the mirror is in place. */
    public enum State {
        /** Mirroring is programmed on the switch. */
        ACTIVE,
        /** The switch is not connected (or not mastered by any node) yet. */
        WAITING_FOR_DEVICE,
        /** The switch refused the mirror; see {@link #detail()}. */
        FAILED
    }

    private final DeviceId deviceId;
    private final PortNumber mirrorPort;
    private final VlanId rspanVlan;
    private final MirrorMode mode;
    private final List<PortNumber> monitoredPorts;
    private final State state;
    private final String detail;

    /**
     * Creates a session record.
     *
     * @param deviceId       the switch
     * @param mirrorPort     port receiving the copies
     * @param rspanVlan      VLAN tagging the copies
     * @param mode           how the mirror is realised
     * @param monitoredPorts ports whose traffic is copied (all but the mirror port)
     * @param state          whether it is in place
     * @param detail         human-readable detail (failure reason, bridge name), may be empty
     */
    public MirrorSession(DeviceId deviceId, PortNumber mirrorPort, VlanId rspanVlan, MirrorMode mode,
                         Collection<PortNumber> monitoredPorts, State state, String detail) {
        this.deviceId = checkNotNull(deviceId);
        this.mirrorPort = checkNotNull(mirrorPort);
        this.rspanVlan = checkNotNull(rspanVlan);
        this.mode = checkNotNull(mode);
        // A plain sorted list (not a sorted set with a comparator) so the session stays Kryo-serialisable.
        this.monitoredPorts = monitoredPorts.stream().distinct()
                .sorted(Comparator.comparingLong(PortNumber::toLong))
                .collect(ImmutableList.toImmutableList());
        this.state = checkNotNull(state);
        this.detail = detail == null ? "" : detail;
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

    public MirrorMode mode() {
        return mode;
    }

    public List<PortNumber> monitoredPorts() {
        return monitoredPorts;
    }

    public State state() {
        return state;
    }

    public String detail() {
        return detail;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof MirrorSession)) {
            return false;
        }
        MirrorSession that = (MirrorSession) o;
        return deviceId.equals(that.deviceId) && mirrorPort.equals(that.mirrorPort)
                && rspanVlan.equals(that.rspanVlan) && mode == that.mode
                && monitoredPorts.equals(that.monitoredPorts) && state == that.state
                && detail.equals(that.detail);
    }

    @Override
    public int hashCode() {
        return Objects.hash(deviceId, mirrorPort, rspanVlan, mode, monitoredPorts, state, detail);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("device", deviceId).add("mirrorPort", mirrorPort)
                .add("rspanVlan", rspanVlan).add("mode", mode).add("monitored", monitoredPorts)
                .add("state", state).add("detail", detail).toString();
    }
}
