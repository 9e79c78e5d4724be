package org.planck.api.fabric;

import org.onlab.packet.MacAddress;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Where a flow currently runs and how fast: source and destination hosts, the shadow path
 * index it is steered onto, and its latest rate estimate.
 */
public final class FlowPlacement {
    private final MacAddress src;
    private final MacAddress dst;
    private final int pathIndex;
    private final double rateBytesPerSec;

    private FlowPlacement(MacAddress src, MacAddress dst, int pathIndex, double rateBytesPerSec) {
        this.src = checkNotNull(src, "src");
        this.dst = checkNotNull(dst, "dst");
        checkArgument(pathIndex >= 0, "path index must be non-negative: %s", pathIndex);
        // Not checkArgument(..., rate): that boxes the double on every call, and placements
        // are made on every TE decision.
        if (!(rateBytesPerSec >= 0 && Double.isFinite(rateBytesPerSec))) {
            throw new IllegalArgumentException("rate must be finite and non-negative: " + rateBytesPerSec);
        }
        this.pathIndex = pathIndex;
        this.rateBytesPerSec = rateBytesPerSec;
    }

    /**
     * Creates a placement.
     *
     * @param src             source host MAC
     * @param dst             destination host MAC
     * @param pathIndex       shadow path index toward dst
     * @param rateBytesPerSec rate estimate, bytes/s
     * @return placement
     */
    public static FlowPlacement of(MacAddress src, MacAddress dst, int pathIndex, double rateBytesPerSec) {
        return new FlowPlacement(src, dst, pathIndex, rateBytesPerSec);
    }

    public MacAddress src() {
        return src;
    }

    public MacAddress dst() {
        return dst;
    }

    public int pathIndex() {
        return pathIndex;
    }

    public double rateBytesPerSec() {
        return rateBytesPerSec;
    }

    /**
     * The same flow on another path.
     *
     * @param index new path index
     * @return placement
     */
    public FlowPlacement withPathIndex(int index) {
        return new FlowPlacement(src, dst, index, rateBytesPerSec);
    }

    /**
     * The same flow with a new rate estimate.
     *
     * @param rate bytes/s
     * @return placement
     */
    public FlowPlacement withRate(double rate) {
        return new FlowPlacement(src, dst, pathIndex, rate);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FlowPlacement)) {
            return false;
        }
        FlowPlacement p = (FlowPlacement) o;
        return pathIndex == p.pathIndex && Double.compare(rateBytesPerSec, p.rateBytesPerSec) == 0
                && src.equals(p.src) && dst.equals(p.dst);
    }

    @Override
    public int hashCode() {
        return Objects.hash(src, dst, pathIndex, rateBytesPerSec);
    }

    @Override
    public String toString() {
        return src + "->" + dst + "#" + pathIndex + "@" + rateBytesPerSec + "B/s";
    }
}
