package org.planck.lab.experiment;

import org.planck.api.te.TeMode;

/**
 * The routing modes compared by the experiment (Planck, SIGCOMM'14, section 7).
 */
public enum RoutingMode {
    /** Hash placement on the fat tree, TE off. */
    STATIC("Static", TeMode.STATIC, FabricSpec.Shape.FAT_TREE),
    /** Counters polled every interval (default 100 ms), TE on those. */
    POLL("Poll-100ms", TeMode.POLL, FabricSpec.Shape.FAT_TREE),
    /** Counters polled every second: the paper's slower polling baseline (Hedera's period). */
    POLL_1S("Poll-1s", TeMode.POLL, FabricSpec.Shape.FAT_TREE),
    /** Collector samples and congestion notices, TE on those. */
    PLANCK("PlanckTE", TeMode.PLANCK, FabricSpec.Shape.FAT_TREE),
    /** The same hosts on one non-blocking switch: the bound any routing can reach. */
    OPTIMAL("Optimal", TeMode.STATIC, FabricSpec.Shape.SINGLE_SWITCH);

    private final String label;
    private final TeMode te;
    private final FabricSpec.Shape shape;

    RoutingMode(String label, TeMode te, FabricSpec.Shape shape) {
        this.label = label;
        this.te = te;
        this.shape = shape;
    }

    /**
     * Name in reports.
     *
     * @return label
     */
    public String label() {
        return label;
    }

    public TeMode te() {
        return te;
    }

    public FabricSpec.Shape shape() {
        return shape;
    }
}
