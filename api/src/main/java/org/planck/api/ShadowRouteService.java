package org.planck.api;

import org.onlab.packet.MacAddress;
import org.onosproject.event.ListenerService;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowRule;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowTree;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Shadow-MAC routes: up to k diverse destination-rooted trees toward every host, each named
 * by a shadow MAC, and the flow rules that realise them.
 */
public interface ShadowRouteService extends FlowPlacements, ListenerService<ShadowRouteEvent, ShadowRouteListener> {

    /**
     * The routing plan in force.
     *
     * @return plan, or empty if Planck is not configured
     */
    @Override
    Optional<RoutingPlan> plan();

    /**
     * A host as routing sees it.
     *
     * @param mac host MAC
     * @return the host, or empty if it is not routed (unknown, or on a port routing cannot use)
     */
    Optional<FabricHost> host(MacAddress mac);

    /**
     * The shadow trees toward a host, by index.
     *
     * @param destination host MAC
     * @return trees, empty for unknown hosts
     */
    List<ShadowTree> trees(MacAddress destination);

    /**
     * Every shadow path from a source host to a destination host, by index.
     *
     * @param src source host MAC
     * @param dst destination host MAC
     * @return paths, empty if either host is unknown or they share an edge switch
     */
    List<ShadowPath> paths(MacAddress src, MacAddress dst);

    /**
     * The path a host pair's traffic takes by default (the hash choice; TE may move flows).
     *
     * @param src source host MAC
     * @param dst destination host MAC
     * @return path, or empty if none (unknown hosts, same edge switch)
     */
    Optional<ShadowPath> chosenPath(MacAddress src, MacAddress dst);

    /**
     * Egress port per destination MAC (real and shadow) on a switch, as Planck's rules
     * forward frames there: the basis of the collectors' forwarding maps.
     *
     * @param deviceId switch
     * @return destination MAC to egress port; empty if Planck has no rules on the switch
     */
    Map<MacAddress, PortNumber> egressEntries(DeviceId deviceId);

    /**
     * Every flow rule of the current plan and of the flow placements, on all switches (each
     * is installed by the switch's master).
     *
     * @return the rules
     */
    Collection<FlowRule> plannedRules();

    /**
     * Steers one flow onto shadow path {@code pathIndex} with a per-flow rule at the source's
     * edge switch (a TE move: one flow-mod). The placement is kept cluster-wide; if a later
     * topology change kills or reshapes that path, the flow is moved back to its host pair's
     * default path (or dropped if a host is gone).
     *
     * @param flow      the flow's 5-tuple
     * @param src       source host MAC
     * @param dst       destination host MAC
     * @param pathIndex shadow path index toward dst
     * @throws IllegalArgumentException if a host is unknown, the hosts share an edge switch,
     *                                  or no tree with that index reaches the source
     * @throws IllegalStateException    if Planck is not configured
     */
    @Override
    void placeFlow(FlowKey flow, MacAddress src, MacAddress dst, int pathIndex);

    /**
     * Removes a flow's per-flow rule; its traffic follows the host-pair default again.
     *
     * @param flow the flow's 5-tuple
     * @return true if the flow had a placement
     */
    @Override
    boolean removeFlow(FlowKey flow);

    /**
     * The flows placed with {@link #placeFlow}.
     *
     * @return flow to placement
     */
    @Override
    Map<FlowKey, FlowPlacement> placements();
}
