package org.planck.app.store;

import org.onlab.packet.MacAddress;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * What a shadow MAC stands for: the index-th shadow path towards a destination host.
 */
public final class ShadowMacKey {
    private final MacAddress destination;
    private final int index;

    /**
     * Creates a key.
     *
     * @param destination real MAC of the destination host
     * @param index       path index, >= 0
     */
    public ShadowMacKey(MacAddress destination, int index) {
        checkArgument(index >= 0, "index must be >= 0");
        this.destination = checkNotNull(destination);
        this.index = index;
    }

    public MacAddress destination() {
        return destination;
    }

    public int index() {
        return index;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ShadowMacKey)) {
            return false;
        }
        ShadowMacKey that = (ShadowMacKey) o;
        return index == that.index && destination.equals(that.destination);
    }

    @Override
    public int hashCode() {
        return Objects.hash(destination, index);
    }

    @Override
    public String toString() {
        return destination + "#" + index;
    }
}
