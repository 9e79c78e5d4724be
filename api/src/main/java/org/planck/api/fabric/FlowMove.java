package org.planck.api.fabric;

import org.planck.api.FlowKey;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A traffic-engineering decision: move one flow from one shadow path index to another. It is
 * realised by one per-flow ingress rule ({@link RoutingPlan#flowRule}).
 */
public final class FlowMove {
    private final FlowKey flow;
    private final FlowPlacement from;
    private final int toIndex;
    private final double maxUtilisationAfter;

    private FlowMove(FlowKey flow, FlowPlacement from, int toIndex, double maxUtilisationAfter) {
        this.flow = checkNotNull(flow, "flow");
        this.from = checkNotNull(from, "from");
        checkArgument(toIndex >= 0 && toIndex != from.pathIndex(), "bad target index %s", toIndex);
        this.toIndex = toIndex;
        this.maxUtilisationAfter = maxUtilisationAfter;
    }

    /**
     * Creates a move.
     *
     * @param flow                the flow
     * @param from                its placement before the move
     * @param toIndex             the new path index, different from the current one
     * @param maxUtilisationAfter highest port utilisation (0-1+) on the new path once the flow is on it
     * @return the move
     */
    public static FlowMove of(FlowKey flow, FlowPlacement from, int toIndex, double maxUtilisationAfter) {
        return new FlowMove(flow, from, toIndex, maxUtilisationAfter);
    }

    public FlowKey flow() {
        return flow;
    }

    public FlowPlacement from() {
        return from;
    }

    public int fromIndex() {
        return from.pathIndex();
    }

    public int toIndex() {
        return toIndex;
    }

    /**
     * The flow's placement after the move.
     *
     * @return placement on the new index
     */
    public FlowPlacement to() {
        return from.withPathIndex(toIndex);
    }

    public double maxUtilisationAfter() {
        return maxUtilisationAfter;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FlowMove)) {
            return false;
        }
        FlowMove m = (FlowMove) o;
        return toIndex == m.toIndex && Double.compare(maxUtilisationAfter, m.maxUtilisationAfter) == 0
                && flow.equals(m.flow) && from.equals(m.from);
    }

    @Override
    public int hashCode() {
        return Objects.hash(flow, from, toIndex, maxUtilisationAfter);
    }

    @Override
    public String toString() {
        return flow + ": " + from.pathIndex() + " -> " + toIndex + " (max util " + maxUtilisationAfter + ")";
    }
}
