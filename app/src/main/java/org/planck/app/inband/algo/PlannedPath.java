package org.planck.app.inband.algo;

import com.google.common.collect.ImmutableList;
import org.onosproject.net.DeviceId;

import java.util.List;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The path the routing plan puts a flow on: its shadow path index (-1 for hosts on one edge
 * switch, which need none) and the switches, first hop first, as PINT would trace them.
 */
public final class PlannedPath {
    private final int index;
    private final List<DeviceId> devices;

    /**
     * Creates a planned path.
     *
     * @param index   shadow path index, or -1 for a single-switch path
     * @param devices switches, first hop first, at least one
     */
    public PlannedPath(int index, List<DeviceId> devices) {
        this.devices = ImmutableList.copyOf(devices);
        checkArgument(!this.devices.isEmpty(), "a path has at least one switch");
        checkArgument(index >= -1, "index must be >= -1");
        this.index = index;
    }

    public int index() {
        return index;
    }

    public List<DeviceId> devices() {
        return devices;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PlannedPath)) {
            return false;
        }
        PlannedPath p = (PlannedPath) o;
        return index == p.index && devices.equals(p.devices);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index, devices);
    }

    @Override
    public String toString() {
        return "#" + index + devices;
    }
}
