package org.planck.lab.control;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Traffic-engineering and collector settings of a lab run: the same knobs the ONOS app's config
 * has (congestion threshold and hysteresis, damping, elephant threshold, poll interval, flow
 * report interval).
 */
public final class TeSettings {
    private final double thresholdPct;
    private final double hysteresisPct;
    private final long dampingMs;
    private final long pollIntervalMs;
    private final double flowReportIntervalMs;
    private final double elephantPct;

    /**
     * Settings.
     *
     * @param thresholdPct         congestion threshold, % of capacity, (0, 100]
     * @param hysteresisPct        cleared below threshold minus this, [0, threshold)
     * @param dampingMs            a moved flow stays put this long, >= 0
     * @param pollIntervalMs       Poll mode's counter period, > 0
     * @param flowReportIntervalMs collector's flow-rate batch period, [1, 1000]
     * @param elephantPct          % of its host link at which TE plans a flow with its demand, [0, 100]
     */
    public TeSettings(double thresholdPct, double hysteresisPct, long dampingMs, long pollIntervalMs,
                      double flowReportIntervalMs, double elephantPct) {
        checkArgument(thresholdPct > 0 && thresholdPct <= 100, "threshold must be in (0, 100]: %s", thresholdPct);
        checkArgument(hysteresisPct >= 0 && hysteresisPct < thresholdPct, "hysteresis must be in [0, threshold)");
        checkArgument(dampingMs >= 0, "damping must be >= 0");
        checkArgument(pollIntervalMs > 0, "poll interval must be > 0");
        checkArgument(flowReportIntervalMs >= 1 && flowReportIntervalMs <= 1000,
                      "flow report interval must be in [1, 1000] ms");
        checkArgument(elephantPct >= 0 && elephantPct <= 100, "elephant threshold must be in [0, 100]");
        this.thresholdPct = thresholdPct;
        this.hysteresisPct = hysteresisPct;
        this.dampingMs = dampingMs;
        this.pollIntervalMs = pollIntervalMs;
        this.flowReportIntervalMs = flowReportIntervalMs;
        this.elephantPct = elephantPct;
    }

    /**
     * Defaults, the app's: 80% threshold, 5% hysteresis, 100 ms damping, 100 ms polls, 5 ms flow
     * reports, elephants from 10% of the host link.
     *
     * @return settings
     */
    public static TeSettings defaults() {
        return new TeSettings(80, 5, 100, 100, 5, 10);
    }

    public double elephantPct() {
        return elephantPct;
    }

    public double thresholdPct() {
        return thresholdPct;
    }

    public double hysteresisPct() {
        return hysteresisPct;
    }

    public long dampingMs() {
        return dampingMs;
    }

    public long pollIntervalMs() {
        return pollIntervalMs;
    }

    public double flowReportIntervalMs() {
        return flowReportIntervalMs;
    }

    /**
     * The threshold as a fraction of capacity.
     *
     * @return (0, 1]
     */
    public double threshold() {
        return thresholdPct / 100.0;
    }

    /**
     * The level below which a port counts as cleared, as a fraction of capacity.
     *
     * @return fraction
     */
    public double clearLevel() {
        return (thresholdPct - hysteresisPct) / 100.0;
    }
}
