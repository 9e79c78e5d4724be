package org.planck.api.fabric;

import org.onlab.packet.MacAddress;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Identity of a shadow path toward a destination host: (destination host MAC, path index).
 * One shadow MAC is allocated per id; all sources share it, so the id names a whole
 * destination-rooted tree.
 */
public final class ShadowPathId implements Comparable<ShadowPathId> {
    private final MacAddress destination;
    private final int index;

    private ShadowPathId(MacAddress destination, int index) {
        this.destination = checkNotNull(destination, "destination");
        checkArgument(index >= 0, "path index must be non-negative: %s", index);
        this.index = index;
    }

    /**
     * Creates an id.
     *
     * @param destination real MAC of the destination host
     * @param index       path index, non-negative
     * @return the id
     */
    public static ShadowPathId of(MacAddress destination, int index) {
        return new ShadowPathId(destination, index);
    }

    public MacAddress destination() {
        return destination;
    }

    public int index() {
        return index;
    }

    @Override
    public int compareTo(ShadowPathId o) {
        int c = Long.compare(destination.toLong(), o.destination.toLong());
        return c != 0 ? c : Integer.compare(index, o.index);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ShadowPathId)) {
            return false;
        }
        ShadowPathId p = (ShadowPathId) o;
        return index == p.index && destination.equals(p.destination);
    }

    @Override
    public int hashCode() {
        // Objects.hash(destination, index)'s value, without its array and boxing: the id is looked
        // up on every TE move.
        return 31 * (31 + destination.hashCode()) + index;
    }

    @Override
    public String toString() {
        return destination + "#" + index;
    }
}
