package org.planck.lab.control;

import org.onlab.packet.MacAddress;
import org.planck.api.FlowKey;
import org.planck.api.FlowPlacements;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.PlannedRule;
import org.planck.api.fabric.RoutingPlan;
import org.planck.lab.emu.RuleOp;
import org.planck.lab.emu.RuleTranslation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

/**
 * Flow placements on the emulated fabric: what the app's {@code ShadowRouteService} does with flow
 * rules, done with the emulator's rule ops. A placement takes effect in the view at once; its
 * rule op waits in the current batch until the controller {@link #drain drains} it, so all moves
 * of one decision round reach the fabric in one atomic {@code POST /v1/rules}. A refused batch is
 * {@link #undo undone}. Not thread-safe: the controller serialises all calls.
 */
final class LabPlacements implements FlowPlacements {
    private RoutingPlan plan;
    private final Map<FlowKey, FlowPlacement> placed = new HashMap<>();
    /** Rule ops of the current batch, one per flow (its last placement wins). */
    private final Map<FlowKey, RuleOp> batch = new LinkedHashMap<>();
    /** Each batched flow's placement before the batch, for undo (null: none). */
    private final Map<FlowKey, FlowPlacement> before = new HashMap<>();

    /**
     * A rule batch drained for the fabric.
     */
    static final class Batch {
        final RoutingPlan plan;
        final List<RuleOp> ops;
        final Map<FlowKey, FlowPlacement> before;
        final Map<FlowKey, FlowPlacement> after;

        Batch(RoutingPlan plan, List<RuleOp> ops, Map<FlowKey, FlowPlacement> before,
              Map<FlowKey, FlowPlacement> after) {
            this.plan = plan;
            this.ops = ops;
            this.before = before;
            this.after = after;
        }
    }

    /**
     * Starts over on a new plan: no placements, nothing batched.
     *
     * @param newPlan the plan installed on the fabric
     */
    void reset(RoutingPlan newPlan) {
        plan = checkNotNull(newPlan, "plan");
        placed.clear();
        batch.clear();
        before.clear();
    }

    @Override
    public Optional<RoutingPlan> plan() {
        return Optional.ofNullable(plan);
    }

    @Override
    public void placeFlow(FlowKey flow, MacAddress src, MacAddress dst, int pathIndex) {
        checkState(plan != null, "no plan installed");
        PlannedRule rule = plan.flowRule(flow, src, dst, pathIndex);
        remember(flow);
        placed.put(flow, FlowPlacement.of(src, dst, pathIndex, 0));
        batch.put(flow, RuleTranslation.add(rule));
    }

    @Override
    public boolean removeFlow(FlowKey flow) {
        FlowPlacement p = placed.get(flow);
        if (p == null) {
            return false;
        }
        remember(flow);
        placed.remove(flow);
        batch.put(flow, RuleTranslation.delete(plan.flowRule(flow, p.src(), p.dst(), p.pathIndex())));
        return true;
    }

    private void remember(FlowKey flow) {
        if (!before.containsKey(flow)) {
            before.put(flow, placed.get(flow));
        }
    }

    @Override
    public Map<FlowKey, FlowPlacement> placements() {
        return new HashMap<>(placed);
    }

    /**
     * The placement of one flow.
     *
     * @param flow the flow
     * @return its placement, or empty if it follows its host pair's default
     */
    @Override
    public Optional<FlowPlacement> placement(FlowKey flow) {
        return Optional.ofNullable(placed.get(flow));
    }

    /**
     * Takes the current batch for the fabric.
     *
     * @return the batch, or empty if nothing was placed since the last drain
     */
    Optional<Batch> drain() {
        if (batch.isEmpty()) {
            return Optional.empty();
        }
        Map<FlowKey, FlowPlacement> after = new HashMap<>();
        for (FlowKey f : batch.keySet()) {
            after.put(f, placed.get(f));
        }
        Batch b = new Batch(plan, new ArrayList<>(batch.values()), new HashMap<>(before), after);
        batch.clear();
        before.clear();
        return Optional.of(b);
    }

    /**
     * Puts back the placements a refused batch changed, where no later placement (or a new plan)
     * replaced them since.
     *
     * @param b the refused batch
     * @return the flows put back
     */
    List<FlowKey> undo(Batch b) {
        List<FlowKey> flows = new ArrayList<>();
        if (b.plan != plan) {
            return flows;
        }
        b.before.forEach((f, p) -> {
            if (!Objects.equals(placed.get(f), b.after.get(f))) {
                return;
            }
            if (p == null) {
                placed.remove(f);
            } else {
                placed.put(f, p);
            }
            flows.add(f);
        });
        return flows;
    }
}
