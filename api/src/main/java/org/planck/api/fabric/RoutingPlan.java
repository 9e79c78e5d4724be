package org.planck.api.fabric;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The shadow-MAC routing of one {@link FabricGraph}: the shadow trees toward every host and the
 * rules that realise them (tree hops, deliveries, host-pair ingress defaults).
 *
 * <p>Per-flow ingress rules are not part of the plan; TE creates them with
 * {@link #flowRule(FlowKey, MacAddress, MacAddress, int)} against it.</p>
 */
public final class RoutingPlan {
    private final FabricGraph graph;
    private final Map<MacAddress, List<ShadowTree>> treesByDestination;
    private final Map<ShadowPathId, ShadowTree> trees;
    private final Map<DeviceId, List<PlannedRule>> rulesByDevice;
    private final int ruleCount;

    private RoutingPlan(FabricGraph graph, Collection<ShadowTree> trees,
                        Map<DeviceId, List<PlannedRule>> rulesByDevice) {
        this.graph = checkNotNull(graph, "graph");
        Map<MacAddress, List<ShadowTree>> byDst = new TreeMap<>(FabricGraph.MAC_ORDER);
        ImmutableMap.Builder<ShadowPathId, ShadowTree> byId = ImmutableMap.builder();
        for (ShadowTree t : trees) {
            byId.put(t.id(), t);
            byDst.computeIfAbsent(t.id().destination(), d -> new ArrayList<>()).add(t);
        }
        ImmutableMap.Builder<MacAddress, List<ShadowTree>> b = ImmutableMap.builder();
        for (Map.Entry<MacAddress, List<ShadowTree>> e : byDst.entrySet()) {
            e.getValue().sort(Comparator.comparingInt(ShadowTree::index));
            b.put(e.getKey(), ImmutableList.copyOf(e.getValue()));
        }
        this.treesByDestination = b.build();
        try {
            this.trees = byId.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("duplicate shadow tree ids: " + e.getMessage(), e);
        }
        ImmutableMap.Builder<DeviceId, List<PlannedRule>> rb = ImmutableMap.builder();
        int n = 0;
        for (Map.Entry<DeviceId, List<PlannedRule>> e : sortedByDevice(rulesByDevice).entrySet()) {
            rb.put(e.getKey(), ImmutableList.copyOf(e.getValue()));
            n += e.getValue().size();
        }
        this.rulesByDevice = rb.build();
        this.ruleCount = n;
    }

    private static Map<DeviceId, List<PlannedRule>> sortedByDevice(Map<DeviceId, List<PlannedRule>> m) {
        Map<DeviceId, List<PlannedRule>> sorted = new TreeMap<>(FabricGraph.DEVICE_ORDER);
        sorted.putAll(m);
        return sorted;
    }

    /**
     * Creates a plan.
     *
     * @param graph         the graph it was computed for
     * @param trees         all shadow trees, unique ids
     * @param rulesByDevice rules per switch
     * @return plan
     */
    public static RoutingPlan of(FabricGraph graph, Collection<ShadowTree> trees,
                                 Map<DeviceId, List<PlannedRule>> rulesByDevice) {
        return new RoutingPlan(graph, trees, rulesByDevice);
    }

    public FabricGraph graph() {
        return graph;
    }

    /**
     * Every shadow tree.
     *
     * @return trees
     */
    public Collection<ShadowTree> trees() {
        return trees.values();
    }

    /**
     * A tree by id.
     *
     * @param id (destination, index)
     * @return tree, or empty
     */
    public Optional<ShadowTree> tree(ShadowPathId id) {
        return Optional.ofNullable(trees.get(id));
    }

    /**
     * The trees toward a destination host, by increasing index. Indices may have gaps after a
     * failure removed a tree that could not be rebuilt.
     *
     * @param destination host MAC
     * @return trees, empty for unknown hosts
     */
    public List<ShadowTree> trees(MacAddress destination) {
        return treesByDestination.getOrDefault(destination, ImmutableList.of());
    }

    /**
     * The path a source host's traffic takes to a destination host on one shadow path index.
     *
     * @param src   source host MAC
     * @param dst   destination host MAC
     * @param index path index
     * @return path from the source's edge switch, or empty if either host is unknown, the index
     *         has no tree, or the tree does not reach the source's edge
     */
    public Optional<ShadowPath> path(MacAddress src, MacAddress dst, int index) {
        Optional<FabricHost> s = graph.host(src);
        ShadowTree t = trees.get(ShadowPathId.of(dst, index));
        if (s.isEmpty() || t == null) {
            return Optional.empty();
        }
        return t.path(s.get().edge());
    }

    /**
     * The trees toward a destination that carry traffic from a given source switch.
     *
     * @param sourceEdge source edge switch
     * @param dst        destination host MAC
     * @return usable trees, by increasing index
     */
    public List<ShadowTree> usableTrees(DeviceId sourceEdge, MacAddress dst) {
        List<ShadowTree> all = trees(dst);
        List<ShadowTree> usable = new ArrayList<>(all.size());
        for (ShadowTree t : all) {
            if (t.sources().contains(sourceEdge)) {
                usable.add(t);
            }
        }
        return usable;
    }

    /**
     * The default path index of a host pair: {@link PathChoice} among the usable trees.
     *
     * @param src source host MAC
     * @param dst destination host MAC
     * @return index, or empty if the hosts share an edge switch (no shadow path needed), either
     *         is unknown, or no tree reaches the source
     */
    public OptionalInt defaultPathIndex(MacAddress src, MacAddress dst) {
        Optional<FabricHost> s = graph.host(src);
        Optional<FabricHost> d = graph.host(dst);
        if (s.isEmpty() || d.isEmpty() || s.get().edge().equals(d.get().edge())) {
            return OptionalInt.empty();
        }
        List<ShadowTree> usable = usableTrees(s.get().edge(), dst);
        if (usable.isEmpty()) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(usable.get(PathChoice.choose(src, dst, usable.size())).index());
    }

    /**
     * The per-flow ingress rule that steers one flow onto shadow path {@code index}: installed at
     * the source's edge with priority above the host-pair default, it is a TE move in one flow-mod.
     *
     * @param flow  the flow's 5-tuple
     * @param src   source host MAC
     * @param dst   destination host MAC
     * @param index target path index
     * @return the rule
     * @throws IllegalArgumentException if a host is unknown, the hosts share an edge, or the
     *                                  index has no tree reaching the source
     */
    public PlannedRule flowRule(FlowKey flow, MacAddress src, MacAddress dst, int index) {
        FabricHost s = graph.host(src).orElseThrow(() -> new IllegalArgumentException("unknown host " + src));
        FabricHost d = graph.host(dst).orElseThrow(() -> new IllegalArgumentException("unknown host " + dst));
        checkArgument(!s.edge().equals(d.edge()), "hosts %s and %s share edge %s", src, dst, s.edge());
        ShadowTree t = trees.get(ShadowPathId.of(dst, index));
        checkArgument(t != null, "no shadow path %s toward %s", index, dst);
        checkArgument(t.sources().contains(s.edge()), "shadow path %s does not reach %s", t.id(), s.edge());
        return PlannedRule.ingressFlow(s.edge(), flow, dst, t.id(), t.shadowMac(),
                                       t.outPort(s.edge()).orElseThrow());
    }

    /**
     * Rules per switch, switches ordered by id.
     *
     * @return rules by device
     */
    public Map<DeviceId, List<PlannedRule>> rulesByDevice() {
        return rulesByDevice;
    }

    /**
     * Rules of one switch.
     *
     * @param device switch
     * @return rules, empty if none
     */
    public List<PlannedRule> rulesAt(DeviceId device) {
        return rulesByDevice.getOrDefault(device, ImmutableList.of());
    }

    /**
     * All rules, as a new list (switch order, then planning order).
     *
     * @return rules
     */
    public List<PlannedRule> rules() {
        List<PlannedRule> all = new ArrayList<>(ruleCount);
        rulesByDevice.values().forEach(all::addAll);
        return all;
    }

    /**
     * Number of rules.
     *
     * @return count
     */
    public int ruleCount() {
        return ruleCount;
    }

    @Override
    public String toString() {
        return "RoutingPlan{" + graph + ", trees=" + trees.size() + ", rules=" + ruleCount + "}";
    }
}
