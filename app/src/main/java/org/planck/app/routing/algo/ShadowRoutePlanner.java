package org.planck.app.routing.algo;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.PathChoice;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.fabric.RoutingUpdate;
import org.planck.api.fabric.RuleKind;
import org.planck.api.fabric.ShadowMacAllocator;
import org.planck.api.fabric.ShadowPathId;
import org.planck.api.fabric.ShadowTree;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Plans shadow-MAC routing over a {@link FabricGraph}: up to k diverse trees toward every host
 * (see {@link ShadowTreeBuilder}), one shadow MAC per (host, index) from the allocator, and the
 * rules that realise them:
 * <ul>
 *     <li>every non-root tree member: {@code eth_dst == shadow(H,i) -> output next link};</li>
 *     <li>H's edge: {@code eth_dst == shadow(H,i) -> set eth_dst = H, output H's port} and
 *     {@code eth_dst == H -> output H's port} (same-edge traffic);</li>
 *     <li>every source host S on another edge: {@code eth_src == S, eth_dst == H -> set eth_dst =
 *     shadow(H,i), output first hop}, with i the {@link PathChoice} among the trees reaching S.</li>
 * </ul>
 * Not thread-safe (it drives the allocator); callers serialise planning.
 */
public final class ShadowRoutePlanner {
    /** Default extra cost, in hops, of reusing a link already used by a tree of the same host. */
    public static final int DEFAULT_LINK_SHARING_PENALTY = 2;

    private final ShadowMacAllocator allocator;
    private final int pathsPerDestination;
    private final int linkSharingPenalty;

    /**
     * A planner with the default link-sharing penalty.
     *
     * @param allocator           shadow MAC allocator
     * @param pathsPerDestination k, the number of shadow paths wanted per host, 1 or more
     */
    public ShadowRoutePlanner(ShadowMacAllocator allocator, int pathsPerDestination) {
        this(allocator, pathsPerDestination, DEFAULT_LINK_SHARING_PENALTY);
    }

    /**
     * A planner.
     *
     * @param allocator           shadow MAC allocator
     * @param pathsPerDestination k, the number of shadow paths wanted per host, 1 or more
     * @param linkSharingPenalty  extra cost in hops of each earlier tree of the same host on a link
     */
    public ShadowRoutePlanner(ShadowMacAllocator allocator, int pathsPerDestination, int linkSharingPenalty) {
        this.allocator = checkNotNull(allocator, "allocator");
        checkArgument(pathsPerDestination >= 1, "paths per destination must be at least 1: %s",
                      pathsPerDestination);
        checkArgument(linkSharingPenalty >= 0, "link sharing penalty must be non-negative: %s",
                      linkSharingPenalty);
        this.pathsPerDestination = pathsPerDestination;
        this.linkSharingPenalty = linkSharingPenalty;
    }

    public int pathsPerDestination() {
        return pathsPerDestination;
    }

    /**
     * Plans routing from scratch.
     *
     * @param graph fabric
     * @return plan with trees and rules
     * @throws org.planck.api.fabric.ShadowMacPoolExhaustedException if the MAC pool runs out
     */
    public RoutingPlan plan(FabricGraph graph) {
        ShadowTreeBuilder builder = new ShadowTreeBuilder(graph, linkSharingPenalty);
        List<ShadowTree> trees = new ArrayList<>();
        for (FabricHost h : graph.hosts()) {
            trees.addAll(materialise(builder, h, pathsPerDestination, List.of()));
        }
        return RoutingPlan.of(graph, trees, emitRules(graph, trees));
    }

    /**
     * Re-plans after the graph changed, rebuilding only the trees that need it: a tree is kept if
     * all its links still exist, with branches of sources that left trimmed and sources that
     * joined grafted on (existing hops unchanged); it is rebuilt (same index and shadow MAC,
     * diverse from the kept trees) if it lost a link or switch, or its host moved. Hosts with
     * fewer than k trees get another attempt; if k was lowered, the highest indices are dropped
     * (their MACs stay allocated to the host). Vanished hosts' MACs are released.
     *
     * @param previous the plan in force
     * @param graph    the changed fabric
     * @return the new plan and the changes
     */
    public RoutingUpdate replan(RoutingPlan previous, FabricGraph graph) {
        ShadowTreeBuilder builder = new ShadowTreeBuilder(graph, linkSharingPenalty);
        FabricGraph before = previous.graph();
        List<ShadowTree> trees = new ArrayList<>();
        Set<ShadowPathId> changed = new HashSet<>();
        Set<ShadowPathId> removed = new HashSet<>();
        Set<MacAddress> affected = new HashSet<>();
        Map<Integer, Set<DeviceId>> reachableByRoot = new HashMap<>();

        for (FabricHost old : before.hosts()) {
            if (graph.host(old.mac()).isEmpty()) {
                affected.add(old.mac());
                for (ShadowTree t : previous.trees(old.mac())) {
                    changed.add(t.id());
                    removed.add(t.id());
                }
                allocator.release(old.mac());
            }
        }
        for (FabricHost h : graph.hosts()) {
            Optional<FabricHost> old = before.host(h.mac());
            List<ShadowTree> oldTrees = previous.trees(h.mac());
            List<ShadowTree> kept = new ArrayList<>();
            if (old.isPresent() && old.get().location().equals(h.location())) {
                // Hosts of one edge switch share their sources: one Dijkstra per edge switch.
                Set<DeviceId> reachable = reachableByRoot.computeIfAbsent(
                        graph.index(h.edge()), r -> ImmutableSet.copyOf(builder.reachableSources(h)));
                for (ShadowTree t : oldTrees) {
                    Optional<ShadowTree> k = keep(t, h, graph, reachable);
                    if (k.isPresent()) {
                        kept.add(k.get());
                        if (!k.get().equals(t)) {
                            changed.add(t.id());
                        }
                    }
                }
            }
            if (kept.size() > pathsPerDestination) {
                // k was lowered: the highest indices go.
                kept.sort((a, b) -> Integer.compare(a.index(), b.index()));
                kept.subList(pathsPerDestination, kept.size()).clear();
            }
            if (old.isEmpty() || !old.get().equals(h)) {
                affected.add(h.mac());
            }
            List<ShadowTree> fresh = kept.size() < pathsPerDestination
                    ? materialise(builder, h, pathsPerDestination - kept.size(), kept) : List.of();
            Set<ShadowPathId> now = new HashSet<>();
            for (ShadowTree t : kept) {
                now.add(t.id());
            }
            for (ShadowTree t : fresh) {
                now.add(t.id());
                changed.add(t.id());
            }
            for (ShadowTree t : oldTrees) {
                if (!now.contains(t.id())) {
                    changed.add(t.id());
                    removed.add(t.id());
                }
            }
            if (!fresh.isEmpty() || kept.size() != oldTrees.size() || changedAny(oldTrees, changed)) {
                affected.add(h.mac());
            }
            trees.addAll(kept);
            trees.addAll(fresh);
        }
        RoutingPlan plan = RoutingPlan.of(graph, trees, emitRules(graph, trees));
        return diff(previous, plan, changed, removed, affected);
    }

    private static boolean changedAny(List<ShadowTree> trees, Set<ShadowPathId> changed) {
        for (ShadowTree t : trees) {
            if (changed.contains(t.id())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The tree as it can stay in the new graph, or empty if it must be rebuilt (a next link or
     * switch is gone). Branches of sources that left are trimmed; sources that joined are grafted
     * onto the tree without changing any existing member's next hop.
     */
    private static Optional<ShadowTree> keep(ShadowTree t, FabricHost host, FabricGraph graph,
                                             Set<DeviceId> reachable) {
        // Guava maps here: DeviceId hashes collide in java.util hash maps.
        ImmutableMap.Builder<DeviceId, FabricLink> current = ImmutableMap.builder();
        boolean unchanged = t.destination().equals(host);
        for (Map.Entry<DeviceId, FabricLink> e : t.nextLinks().entrySet()) {
            Optional<FabricLink> now = graph.link(e.getValue().src());
            if (now.isEmpty() || !now.get().dst().equals(e.getValue().dst())) {
                return Optional.empty();
            }
            unchanged &= now.get().equals(e.getValue());
            current.put(e.getKey(), now.get());
        }
        if (unchanged && t.sources().equals(reachable)) {
            return Optional.of(t);
        }
        Map<DeviceId, FabricLink> links = current.build();
        if (t.sources().equals(reachable)) {
            return Optional.of(ShadowTree.of(t.id(), t.shadowMac(), host, links, t.sources()));
        }
        Map<DeviceId, FabricLink> result = new TreeMap<>(FabricGraph.DEVICE_ORDER);
        List<DeviceId> joined = new ArrayList<>();
        for (DeviceId s : reachable) {
            if (links.containsKey(s) || s.equals(host.edge())) {
                climb(s, links, result, host.edge());
            } else {
                joined.add(s);
            }
        }
        joined.sort(FabricGraph.DEVICE_ORDER);
        for (DeviceId s : joined) {
            if (result.containsKey(s)) {
                continue;
            }
            List<FabricLink> route = graft(s, result, host.edge(), graph);
            if (route.isEmpty()) {
                return Optional.empty();
            }
            for (FabricLink l : route) {
                result.put(l.srcDevice(), l);
            }
        }
        return Optional.of(ShadowTree.of(t.id(), t.shadowMac(), host, result, reachable));
    }

    /** Adds the branch from {@code from} to the root, following the tree's links. */
    private static void climb(DeviceId from, Map<DeviceId, FabricLink> links, Map<DeviceId, FabricLink> into,
                              DeviceId root) {
        DeviceId at = from;
        while (!at.equals(root) && !into.containsKey(at)) {
            FabricLink l = links.get(at);
            into.put(at, l);
            at = l.dstDevice();
        }
    }

    /**
     * The shortest route from a new source to the partial tree, minimising hops to a member plus
     * that member's depth; intermediate switches are not members, so no loop can form.
     */
    private static List<FabricLink> graft(DeviceId source, Map<DeviceId, FabricLink> members, DeviceId root,
                                          FabricGraph graph) {
        Map<DeviceId, FabricLink> via = new HashMap<>();
        Map<DeviceId, Integer> hops = new HashMap<>();
        java.util.ArrayDeque<DeviceId> queue = new java.util.ArrayDeque<>();
        hops.put(source, 0);
        queue.add(source);
        DeviceId best = null;
        int bestCost = Integer.MAX_VALUE;
        while (!queue.isEmpty()) {
            DeviceId at = queue.poll();
            int h = hops.get(at);
            if (h >= bestCost) {
                break;
            }
            for (FabricLink l : graph.egressLinks(at)) {
                DeviceId next = l.dstDevice();
                if (hops.containsKey(next)) {
                    continue;
                }
                hops.put(next, h + 1);
                via.put(next, l);
                if (next.equals(root) || members.containsKey(next)) {
                    int cost = h + 1 + depth(next, members, root);
                    if (cost < bestCost || (cost == bestCost
                            && FabricGraph.DEVICE_ORDER.compare(next, best) < 0)) {
                        best = next;
                        bestCost = cost;
                    }
                } else {
                    queue.add(next);
                }
            }
        }
        if (best == null) {
            return List.of();
        }
        List<FabricLink> route = new ArrayList<>();
        for (DeviceId at = best; !at.equals(source); at = via.get(at).srcDevice()) {
            route.add(via.get(at));
        }
        return route;
    }

    private static int depth(DeviceId member, Map<DeviceId, FabricLink> links, DeviceId root) {
        int d = 0;
        for (DeviceId at = member; !at.equals(root); at = links.get(at).dstDevice()) {
            d++;
        }
        return d;
    }

    private List<ShadowTree> materialise(ShadowTreeBuilder builder, FabricHost host, int wanted,
                                         List<ShadowTree> kept) {
        List<ShadowTreeBuilder.TreeShape> shapes = builder.build(host, wanted, kept);
        Set<Integer> taken = new HashSet<>();
        for (ShadowTree t : kept) {
            taken.add(t.index());
        }
        List<ShadowTree> out = new ArrayList<>(shapes.size());
        int index = 0;
        for (ShadowTreeBuilder.TreeShape s : shapes) {
            while (taken.contains(index)) {
                index++;
            }
            ShadowPathId id = ShadowPathId.of(host.mac(), index);
            MacAddress mac = allocator.allocate(host.mac(), index);
            out.add(ShadowTree.of(id, mac, host, builder.nextLinks(s), builder.sources(s)));
            taken.add(index);
        }
        return out;
    }

    /**
     * The rules realising a set of trees over a graph.
     *
     * @param graph fabric
     * @param trees trees toward its hosts
     * @return rules per switch
     */
    static Map<DeviceId, List<PlannedRule>> emitRules(FabricGraph graph, List<ShadowTree> trees) {
        return emitRules(graph, trees, null);
    }

    /**
     * The rules realising a set of trees over a graph, or only those that concern some hosts:
     * rules toward them (tree hops, deliveries, ingress from any source) and ingress rules from them.
     *
     * @param graph fabric
     * @param trees trees toward its hosts
     * @param only  sorted MAC values of the hosts of interest, or null for all rules
     * @return rules per switch
     */
    static Map<DeviceId, List<PlannedRule>> emitRules(FabricGraph graph, List<ShadowTree> trees, long[] only) {
        // Dense switch indices and per-tree arrays: DeviceId-keyed lookups would dominate here
        // (a million ingress rules on a k=16 fat tree).
        int n = graph.switches().size();
        Map<DeviceId, Integer> indexOf = new IdentityHashMap<>(2 * n);
        for (int i = 0; i < n; i++) {
            indexOf.put(graph.switches().get(i), i);
        }
        List<List<PlannedRule>> rules = new ArrayList<>(n);
        if (only == null) {
            // Exact sizes up front: these lists hold over a million rules on large fabrics.
            int[] counts = new int[n];
            for (ShadowTree t : trees) {
                for (DeviceId d : t.nextLinks().keySet()) {
                    counts[index(graph, indexOf, d)]++;
                }
                counts[index(graph, indexOf, t.root())]++;
            }
            int hostCount = graph.hosts().size();
            for (int i = 0; i < n; i++) {
                int local = graph.hostsAt(i).size();
                rules.add(new ArrayList<>(counts[i] + local + local * (hostCount - local)));
            }
        } else {
            for (int i = 0; i < n; i++) {
                rules.add(new ArrayList<>());
            }
        }
        Map<MacAddress, List<TreeView>> byDst = new TreeMap<>(FabricGraph.MAC_ORDER);
        for (ShadowTree t : trees) {
            TreeView view = new TreeView(t, n);
            byDst.computeIfAbsent(t.id().destination(), m -> new ArrayList<>()).add(view);
            boolean emit = among(only, t.id().destination());
            for (Map.Entry<DeviceId, FabricLink> e : t.nextLinks().entrySet()) {
                int at = index(graph, indexOf, e.getKey());
                view.out[at] = e.getValue().srcPort();
                if (emit) {
                    rules.get(at).add(PlannedRule.shadowTransit(e.getKey(), t.id(), t.shadowMac(),
                                                                e.getValue().srcPort()));
                }
            }
            for (DeviceId src : t.sources()) {
                view.source[index(graph, indexOf, src)] = true;
            }
            if (emit) {
                rules.get(index(graph, indexOf, t.root())).add(
                        PlannedRule.shadowDelivery(t.destination(), t.id(), t.shadowMac()));
            }
        }
        List<Integer> edges = new ArrayList<>();
        List<Integer> edgesWithHostsOfInterest = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            List<FabricHost> local = graph.hostsAt(i);
            if (!local.isEmpty()) {
                edges.add(i);
                for (FabricHost h : local) {
                    if (among(only, h.mac())) {
                        edgesWithHostsOfInterest.add(i);
                        break;
                    }
                }
            }
        }
        TreeView[] usable = new TreeView[0];
        for (FabricHost h : graph.hosts()) {
            boolean toInterest = among(only, h.mac());
            int hostEdge = index(graph, indexOf, h.edge());
            if (toInterest) {
                rules.get(hostEdge).add(PlannedRule.hostDelivery(h));
            }
            List<TreeView> toH = byDst.get(h.mac());
            if (toH == null) {
                continue;
            }
            toH.sort((x, y) -> Integer.compare(x.tree.index(), y.tree.index()));
            if (usable.length < toH.size()) {
                usable = new TreeView[toH.size()];
            }
            for (int e : toInterest ? edges : edgesWithHostsOfInterest) {
                if (e == hostEdge) {
                    continue;
                }
                int count = 0;
                for (TreeView v : toH) {
                    if (v.source[e]) {
                        usable[count++] = v;
                    }
                }
                if (count == 0) {
                    continue;
                }
                DeviceId edge = graph.switches().get(e);
                List<PlannedRule> at = rules.get(e);
                for (FabricHost s : graph.hostsAt(e)) {
                    if (!toInterest && !among(only, s.mac())) {
                        continue;
                    }
                    TreeView v = usable[PathChoice.choose(s.mac(), h.mac(), count)];
                    at.add(PlannedRule.ingressHostPair(edge, s.mac(), h.mac(), v.tree.id(), v.tree.shadowMac(),
                                                       v.out[e]));
                }
            }
        }
        Map<DeviceId, List<PlannedRule>> byDevice = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            if (!rules.get(i).isEmpty()) {
                byDevice.put(graph.switches().get(i), rules.get(i));
            }
        }
        return byDevice;
    }

    /** A tree with its out ports and sources by dense switch index. */
    private static final class TreeView {
        final ShadowTree tree;
        final PortNumber[] out;
        final boolean[] source;

        TreeView(ShadowTree tree, int switches) {
            this.tree = tree;
            this.out = new PortNumber[switches];
            this.source = new boolean[switches];
        }
    }

    private static int index(FabricGraph graph, Map<DeviceId, Integer> identityIndex, DeviceId device) {
        Integer i = identityIndex.get(device);
        return i != null ? i : graph.index(device);
    }

    private static boolean among(long[] sortedMacs, MacAddress mac) {
        return sortedMacs == null || Arrays.binarySearch(sortedMacs, mac.toLong()) >= 0;
    }

    /**
     * Rule changes between two plans. Only rules concerning affected hosts can differ (every other
     * rule depends only on unchanged trees and hosts), so both sides are re-emitted for those
     * hosts alone rather than scanning every rule.
     */
    private static RoutingUpdate diff(RoutingPlan previous, RoutingPlan plan, Set<ShadowPathId> changed,
                                      Set<ShadowPathId> removed, Set<MacAddress> affected) {
        long[] hosts = new long[affected.size()];
        int i = 0;
        for (MacAddress m : affected) {
            hosts[i++] = m.toLong();
        }
        Arrays.sort(hosts);
        Set<PlannedRule> oldRules = new HashSet<>();
        List<PlannedRule> add = new ArrayList<>();
        Set<List<Object>> newMatches = new HashSet<>();
        if (hosts.length > 0) {
            for (List<PlannedRule> l : emitRules(previous.graph(), new ArrayList<>(previous.trees()), hosts).values()) {
                oldRules.addAll(l);
            }
            for (List<PlannedRule> l : emitRules(plan.graph(), new ArrayList<>(plan.trees()), hosts).values()) {
                for (PlannedRule r : l) {
                    newMatches.add(r.matchKey());
                    if (!oldRules.contains(r)) {
                        add.add(r);
                    }
                }
            }
        }
        List<PlannedRule> remove = new ArrayList<>();
        for (PlannedRule r : oldRules) {
            if (!newMatches.contains(r.matchKey())) {
                remove.add(r);
            }
        }
        return RoutingUpdate.of(previous, plan, changed, removed, affected, add, remove);
    }

}
