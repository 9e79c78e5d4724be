package org.planck.app.inband.algo;

import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.FlowPlacements;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.RoutingPlan;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Where the routing plan puts each flow: a flow with a per-flow placement (a TE or manual move)
 * on its placement's shadow path, any other flow on its host pair's default path
 * ({@link RoutingPlan#defaultPathIndex}); hosts on one edge switch on that switch alone.
 */
@FunctionalInterface
public interface PlannedPaths {

    /**
     * The flow's planned path.
     *
     * @param flow the flow's 5-tuple
     * @return the path, or empty if the plan has none for it
     */
    Optional<PlannedPath> plannedPath(FlowKey flow);

    /**
     * The plan and placements in force now, read once (placements may be copied on each read).
     *
     * @param placements shadow routing
     * @return the planned paths of that moment
     */
    static PlannedPaths snapshot(FlowPlacements placements) {
        Optional<RoutingPlan> plan = placements.plan();
        if (plan.isEmpty()) {
            return flow -> Optional.empty();
        }
        return of(plan.get(), placements.placements());
    }

    /**
     * Planned paths of a plan and its per-flow placements.
     *
     * @param plan       the routing plan
     * @param placements per-flow placements
     * @return the lookup
     */
    static PlannedPaths of(RoutingPlan plan, Map<FlowKey, FlowPlacement> placements) {
        return flow -> {
            FlowPlacement p = placements.get(flow);
            MacAddress src;
            MacAddress dst;
            int index;
            if (p != null) {
                src = p.src();
                dst = p.dst();
                index = p.pathIndex();
            } else {
                Optional<FabricHost> s = plan.graph().hostByIp(flow.src());
                Optional<FabricHost> d = plan.graph().hostByIp(flow.dst());
                if (s.isEmpty() || d.isEmpty()) {
                    return Optional.empty();
                }
                if (s.get().edge().equals(d.get().edge())) {
                    return Optional.of(new PlannedPath(-1, List.of(s.get().edge())));
                }
                src = s.get().mac();
                dst = d.get().mac();
                OptionalInt i = plan.defaultPathIndex(src, dst);
                if (i.isEmpty()) {
                    return Optional.empty();
                }
                index = i.getAsInt();
            }
            return plan.path(src, dst, index).map(sp -> {
                List<DeviceId> devices = new ArrayList<>(sp.hops().size());
                for (PathHop h : sp.hops()) {
                    devices.add(h.device());
                }
                return new PlannedPath(index, devices);
            });
        };
    }
}
