package org.planck.app.inband.algo;

import org.planck.api.config.PlanckSettings;
import org.planck.api.inband.IntPortState;
import org.planck.api.telemetry.IntPortSignal;

import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * How INT_PORT signals update a port's {@link IntPortState}: a signal older than the newest of
 * its kind already applied is stale (reordered delivery) and changes nothing; queue occupancy
 * marks the port congested when its largest queue reaches the threshold, and lifts the mark
 * when every queue is below threshold minus hysteresis. Not thread-safe.
 */
public final class IntPortRules {
    private long threshold = PlanckSettings.DEFAULT_INT_QUEUE_THRESHOLD;
    private long hysteresis = PlanckSettings.DEFAULT_INT_QUEUE_THRESHOLD / 5;

    /**
     * Sets the queue thresholds (the network config's intQueueThreshold and intQueueHysteresis).
     *
     * @param queueThreshold  occupancy at or above which a port is congested, >= 1
     * @param queueHysteresis a congested port clears below threshold minus this, [0, threshold)
     */
    public void configure(long queueThreshold, long queueHysteresis) {
        checkArgument(queueThreshold >= 1, "queue threshold must be >= 1, got %s", queueThreshold);
        checkArgument(queueHysteresis >= 0 && queueHysteresis < queueThreshold,
                "queue hysteresis must be in [0, threshold), got %s", queueHysteresis);
        this.threshold = queueThreshold;
        this.hysteresis = queueHysteresis;
    }

    public long threshold() {
        return threshold;
    }

    public long hysteresis() {
        return hysteresis;
    }

    /**
     * Applies one signal.
     *
     * @param current   the port's state (an empty one for a new port)
     * @param signal    the signal
     * @param collector its collector
     * @param nowMillis controller time
     * @return the new state, or empty if the signal is stale
     */
    public Optional<IntPortState> apply(IntPortState current, IntPortSignal signal, String collector,
                                        long nowMillis) {
        long newest = current.reportUs(signal.signal());
        if (newest != IntPortState.UNKNOWN && signal.reportUs() < newest) {
            return Optional.empty();
        }
        return Optional.of(judge(current.with(signal, collector, nowMillis)));
    }

    /**
     * The state with its congestion mark decided under the thresholds in force.
     *
     * @param state a state
     * @return the same state if the mark stands, else a copy with the mark changed
     */
    public IntPortState judge(IntPortState state) {
        long max = state.maxQueueOccupancy();
        boolean congested = state.queueCongested() ? max >= threshold - hysteresis : max >= threshold;
        return congested == state.queueCongested() ? state : state.withQueueCongested(congested);
    }
}
