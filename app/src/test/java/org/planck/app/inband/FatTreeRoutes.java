package org.planck.app.inband;

import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowRule;
import org.planck.api.FlowKey;
import org.planck.api.ShadowRouteListener;
import org.planck.api.ShadowRouteService;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowTree;
import org.planck.app.routing.algo.FatTreeFabric;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Shadow routing of a k=4 fat tree planned by the app's planner, with per-flow placements held
 * in memory: the routing plan PINT traces are judged against.
 */
public final class FatTreeRoutes implements ShadowRouteService {
    public final FatTreeFabric fabric = FatTreeFabric.of(4);
    public final RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4).plan(fabric.graph());
    private final Map<FlowKey, FlowPlacement> placements = new ConcurrentHashMap<>();

    /**
     * A TCP flow between two hosts of the fabric.
     *
     * @param src   source host (pod, edge, host)
     * @param dst   destination host (pod, edge, host)
     * @param sport source port
     * @return the flow
     */
    public static FlowKey flow(int[] src, int[] dst, int sport) {
        IpAddress s = FatTreeFabric.hostIp(src[0], src[1], src[2]);
        IpAddress d = FatTreeFabric.hostIp(dst[0], dst[1], dst[2]);
        return FlowKey.of(s, d, 6, sport, 5001);
    }

    /**
     * The switches of one shadow path of a flow.
     *
     * @param flow  the flow
     * @param index path index
     * @return switches, first hop first
     */
    public List<DeviceId> pathOf(FlowKey flow, int index) {
        MacAddress s = plan.graph().hostByIp(flow.src()).orElseThrow().mac();
        MacAddress d = plan.graph().hostByIp(flow.dst()).orElseThrow().mac();
        ShadowPath p = plan.path(s, d, index).orElseThrow();
        List<DeviceId> devices = new ArrayList<>();
        for (PathHop h : p.hops()) {
            devices.add(h.device());
        }
        return devices;
    }

    /**
     * The host pair's default path index of a flow.
     *
     * @param flow the flow
     * @return index
     */
    public int defaultIndex(FlowKey flow) {
        MacAddress s = plan.graph().hostByIp(flow.src()).orElseThrow().mac();
        MacAddress d = plan.graph().hostByIp(flow.dst()).orElseThrow().mac();
        return plan.defaultPathIndex(s, d).getAsInt();
    }

    /**
     * Another usable path index of a flow than its default, whose switches differ.
     *
     * @param flow the flow
     * @return index
     */
    public int otherIndex(FlowKey flow) {
        int def = defaultIndex(flow);
        for (ShadowTree t : plan.trees(plan.graph().hostByIp(flow.dst()).orElseThrow().mac())) {
            if (t.index() != def && t.sources().contains(plan.graph().hostByIp(flow.src()).orElseThrow().edge())
                    && !pathOf(flow, t.index()).equals(pathOf(flow, def))) {
                return t.index();
            }
        }
        throw new IllegalStateException("no other path for " + flow);
    }

    @Override
    public Optional<RoutingPlan> plan() {
        return Optional.of(plan);
    }

    @Override
    public Optional<FabricHost> host(MacAddress mac) {
        return plan.graph().host(mac);
    }

    @Override
    public List<ShadowTree> trees(MacAddress destination) {
        return plan.trees(destination);
    }

    @Override
    public List<ShadowPath> paths(MacAddress src, MacAddress dst) {
        List<ShadowPath> paths = new ArrayList<>();
        for (ShadowTree t : plan.trees(dst)) {
            plan.path(src, dst, t.index()).ifPresent(paths::add);
        }
        return paths;
    }

    @Override
    public Optional<ShadowPath> chosenPath(MacAddress src, MacAddress dst) {
        OptionalInt i = plan.defaultPathIndex(src, dst);
        return i.isPresent() ? plan.path(src, dst, i.getAsInt()) : Optional.empty();
    }

    @Override
    public Map<MacAddress, PortNumber> egressEntries(DeviceId deviceId) {
        return Map.of();
    }

    @Override
    public Collection<FlowRule> plannedRules() {
        return List.of();
    }

    @Override
    public void placeFlow(FlowKey flow, MacAddress src, MacAddress dst, int pathIndex) {
        plan.flowRule(flow, src, dst, pathIndex);
        placements.put(flow, FlowPlacement.of(src, dst, pathIndex, 0));
    }

    /**
     * Places a flow by its addresses.
     *
     * @param flow      the flow
     * @param pathIndex path index
     */
    public void place(FlowKey flow, int pathIndex) {
        placeFlow(flow, plan.graph().hostByIp(flow.src()).orElseThrow().mac(),
                plan.graph().hostByIp(flow.dst()).orElseThrow().mac(), pathIndex);
    }

    @Override
    public boolean removeFlow(FlowKey flow) {
        return placements.remove(flow) != null;
    }

    @Override
    public Map<FlowKey, FlowPlacement> placements() {
        return Map.copyOf(placements);
    }

    @Override
    public void addListener(ShadowRouteListener listener) {
    }

    @Override
    public void removeListener(ShadowRouteListener listener) {
    }
}
