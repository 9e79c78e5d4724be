package org.planck.api.fabric;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import org.onlab.packet.MacAddress;
import org.planck.api.FlowKey;

import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The result of re-planning after a topology or host change: the new plan, which shadow paths
 * changed, and the rule changes that turn the previous plan into the new one.
 *
 * <p>Apply {@link #rulesToAdd()} first (a rule whose {@link PlannedRule#matchKey()} exists on the
 * switch replaces it), then {@link #rulesToRemove()} (old rules whose match is gone). Per-flow
 * ingress rules are not in the plan: ask {@link #flowsToReplace(Map)} which flows need a new one.</p>
 */
public final class RoutingUpdate {
    private final RoutingPlan previous;
    private final RoutingPlan plan;
    private final Set<ShadowPathId> changedPaths;
    private final Set<ShadowPathId> removedPaths;
    private final Set<MacAddress> affectedHosts;
    private final List<PlannedRule> rulesToAdd;
    private final List<PlannedRule> rulesToRemove;

    private RoutingUpdate(RoutingPlan previous, RoutingPlan plan, Set<ShadowPathId> changedPaths,
                          Set<ShadowPathId> removedPaths, Set<MacAddress> affectedHosts,
                          List<PlannedRule> rulesToAdd, List<PlannedRule> rulesToRemove) {
        this.previous = checkNotNull(previous, "previous");
        this.plan = checkNotNull(plan, "plan");
        this.changedPaths = ImmutableSet.copyOf(new TreeSet<>(changedPaths));
        this.removedPaths = ImmutableSet.copyOf(new TreeSet<>(removedPaths));
        this.affectedHosts = ImmutableSet.copyOf(affectedHosts);
        this.rulesToAdd = ImmutableList.copyOf(rulesToAdd);
        this.rulesToRemove = ImmutableList.copyOf(rulesToRemove);
    }

    /**
     * Creates an update.
     *
     * @param previous      plan before the change
     * @param plan          plan after the change
     * @param changedPaths  paths added, rebuilt, trimmed, grafted or removed
     * @param removedPaths  paths that no longer exist (subset of changed)
     * @param affectedHosts hosts whose trees or location changed, or that appeared or vanished
     * @param rulesToAdd    new or modified rules
     * @param rulesToRemove rules whose match no longer exists
     * @return update
     */
    public static RoutingUpdate of(RoutingPlan previous, RoutingPlan plan, Set<ShadowPathId> changedPaths,
                                   Set<ShadowPathId> removedPaths, Set<MacAddress> affectedHosts,
                                   List<PlannedRule> rulesToAdd, List<PlannedRule> rulesToRemove) {
        return new RoutingUpdate(previous, plan, changedPaths, removedPaths, affectedHosts,
                                 rulesToAdd, rulesToRemove);
    }

    public RoutingPlan previous() {
        return previous;
    }

    public RoutingPlan plan() {
        return plan;
    }

    /**
     * Shadow paths whose tree was added, rebuilt, trimmed, grafted or removed; all others are unchanged.
     *
     * @return changed path ids, ordered
     */
    public Set<ShadowPathId> changedPaths() {
        return changedPaths;
    }

    /**
     * Shadow paths that existed before and have no tree now.
     *
     * @return removed path ids, ordered
     */
    public Set<ShadowPathId> removedPaths() {
        return removedPaths;
    }

    /**
     * Hosts whose trees or location changed, or that appeared or vanished.
     *
     * @return host MACs
     */
    public Set<MacAddress> affectedHosts() {
        return affectedHosts;
    }

    public List<PlannedRule> rulesToAdd() {
        return rulesToAdd;
    }

    public List<PlannedRule> rulesToRemove() {
        return rulesToRemove;
    }

    /**
     * Host pairs (source, destination) whose host-pair default rule changed or vanished: their
     * tree died, the trees toward the destination changed, or a host moved or left.
     *
     * @return (source MAC, destination MAC) pairs
     */
    public Set<Map.Entry<MacAddress, MacAddress>> reroutedHostPairs() {
        ImmutableSet.Builder<Map.Entry<MacAddress, MacAddress>> b = ImmutableSet.builder();
        for (List<PlannedRule> rules : List.of(rulesToAdd, rulesToRemove)) {
            for (PlannedRule r : rules) {
                if (r.kind() == RuleKind.INGRESS_HOST_PAIR) {
                    b.add(new AbstractMap.SimpleImmutableEntry<>(r.ethSrc().orElseThrow(), r.ethDst()));
                }
            }
        }
        return b.build();
    }

    /**
     * Whether nothing changed.
     *
     * @return true if no path and no rule changed
     */
    public boolean isEmpty() {
        return changedPaths.isEmpty() && rulesToAdd.isEmpty() && rulesToRemove.isEmpty();
    }

    /**
     * The flows, among those placed by per-flow rules, whose rule is no longer right: the tree
     * they were on is gone or no longer reaches their source, a host vanished or moved, or the
     * first hop changed. The caller re-places them (default choice or TE) with
     * {@link RoutingPlan#flowRule} on {@link #plan()}, or drops the rule if a host is gone.
     *
     * @param placements current per-flow placements
     * @return flows needing a new (or no) per-flow rule
     */
    public Set<FlowKey> flowsToReplace(Map<FlowKey, FlowPlacement> placements) {
        ImmutableSet.Builder<FlowKey> out = ImmutableSet.builder();
        for (Map.Entry<FlowKey, FlowPlacement> e : placements.entrySet()) {
            FlowPlacement p = e.getValue();
            if (!affectedHosts.contains(p.src()) && !affectedHosts.contains(p.dst())) {
                continue;
            }
            Optional<PlannedRule> before = ruleIn(previous, e.getKey(), p);
            Optional<PlannedRule> after = ruleIn(plan, e.getKey(), p);
            if (after.isEmpty() || !after.equals(before)) {
                out.add(e.getKey());
            }
        }
        return out.build();
    }

    private static Optional<PlannedRule> ruleIn(RoutingPlan plan, FlowKey flow, FlowPlacement p) {
        try {
            return Optional.of(plan.flowRule(flow, p.src(), p.dst(), p.pathIndex()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return "RoutingUpdate{changed=" + changedPaths.size() + ", removed=" + removedPaths.size()
                + ", +rules=" + rulesToAdd.size() + ", -rules=" + rulesToRemove.size() + "}";
    }
}
