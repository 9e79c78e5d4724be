package org.planck.api;

import org.onlab.packet.MacAddress;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.RoutingPlan;

import java.util.Map;
import java.util.Optional;

/**
 * The part of shadow routing that traffic engineering needs: the plan in force and the per-flow
 * placements on it. {@link ShadowRouteService} is one implementation (flow rules on switches);
 * the lab's emulated fabric is another.
 */
public interface FlowPlacements {

    /**
     * The routing plan in force.
     *
     * @return plan, or empty if there is none
     */
    Optional<RoutingPlan> plan();

    /**
     * Steers one flow onto shadow path {@code pathIndex} with one per-flow rule at the source's
     * edge switch (a TE move: one flow-mod).
     *
     * @param flow      the flow's 5-tuple
     * @param src       source host MAC
     * @param dst       destination host MAC
     * @param pathIndex shadow path index toward dst
     * @throws IllegalArgumentException if a host is unknown, the hosts share an edge switch,
     *                                  or no tree with that index reaches the source
     * @throws IllegalStateException    if no plan is in force
     */
    void placeFlow(FlowKey flow, MacAddress src, MacAddress dst, int pathIndex);

    /**
     * Removes a flow's per-flow rule; its traffic follows the host-pair default again.
     *
     * @param flow the flow's 5-tuple
     * @return true if the flow had a placement
     */
    boolean removeFlow(FlowKey flow);

    /**
     * The flows placed with {@link #placeFlow}.
     *
     * @return flow to placement
     */
    Map<FlowKey, FlowPlacement> placements();

    /**
     * The placement of one flow, without copying every placement as {@link #placements()} does
     * (the TE loop asks for the few flows of each telemetry batch).
     *
     * @param flow the flow's 5-tuple
     * @return its placement, or empty if it follows its host pair's default
     */
    default Optional<FlowPlacement> placement(FlowKey flow) {
        return Optional.ofNullable(placements().get(flow));
    }
}
