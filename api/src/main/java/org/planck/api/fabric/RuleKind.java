package org.planck.api.fabric;

/**
 * What a planned rule does, and its priority. Priorities only matter where matches overlap: at
 * an ingress edge a per-flow rule must win over the host-pair default for the same MACs.
 */
public enum RuleKind {
    /** {@code eth_dst == shadow -> output}: a tree hop toward the destination's edge. */
    SHADOW_TRANSIT(30000),
    /** At the destination's edge: {@code eth_dst == shadow -> set eth_dst = host MAC, output host port}. */
    SHADOW_DELIVERY(30000),
    /** At the destination's edge: {@code eth_dst == host MAC -> output host port} (same-edge traffic). */
    HOST_DELIVERY(30000),
    /** At a source edge: {@code eth_src == S, eth_dst == H -> set eth_dst = shadow(H, i), output}. */
    INGRESS_HOST_PAIR(31000),
    /** At a source edge: {@code eth_dst == H and 5-tuple -> set eth_dst = shadow(H, i), output} (TE moves). */
    INGRESS_FLOW(32000);

    private final int priority;

    RuleKind(int priority) {
        this.priority = priority;
    }

    /**
     * Flow-rule priority for this kind.
     *
     * @return priority
     */
    public int priority() {
        return priority;
    }

    /**
     * Whether the rule rewrites a real destination MAC into a shadow MAC at a source edge.
     *
     * @return true for ingress rules
     */
    public boolean isIngress() {
        return this == INGRESS_HOST_PAIR || this == INGRESS_FLOW;
    }
}
