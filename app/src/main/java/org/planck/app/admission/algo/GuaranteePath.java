package org.planck.app.admission.algo;

import com.google.common.collect.ImmutableList;
import org.planck.api.admission.GuaranteeHop;

import java.util.List;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * A shadow path as admission control sees it: its index toward the destination and its hops,
 * each a switch and the capacity of the port it leaves by (the last hop delivers to the host).
 */
public final class GuaranteePath {
    private final int index;
    private final List<GuaranteeHop> hops;

    /**
     * A path.
     *
     * @param index shadow path index, >= 0
     * @param hops  switches in order, at least one
     */
    public GuaranteePath(int index, List<GuaranteeHop> hops) {
        checkArgument(index >= 0, "index must be >= 0");
        checkArgument(!hops.isEmpty(), "a path has at least one hop");
        this.index = index;
        this.hops = ImmutableList.copyOf(hops);
    }

    public int index() {
        return index;
    }

    public List<GuaranteeHop> hops() {
        return hops;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof GuaranteePath)) {
            return false;
        }
        GuaranteePath p = (GuaranteePath) o;
        return index == p.index && hops.equals(p.hops);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index, hops);
    }

    @Override
    public String toString() {
        return "GuaranteePath{" + index + ": " + hops + "}";
    }
}
