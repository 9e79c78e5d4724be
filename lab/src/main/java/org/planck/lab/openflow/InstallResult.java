package org.planck.lab.openflow;

import com.google.common.collect.ImmutableList;
import org.onosproject.net.DeviceId;

import java.util.List;

/**
 * A batch of flow-mods closed by a barrier: the switch answered the barrier, so every flow-mod of
 * the batch it did not refuse is in its flow table ({@link #inForceNanos()}), and the ones it
 * refused are listed with their errors.
 */
public final class InstallResult {
    private final DeviceId device;
    private final int flowMods;
    private final List<RuleRejection> rejections;
    private final long sentNanos;
    private final long inForceNanos;

    InstallResult(DeviceId device, int flowMods, List<RuleRejection> rejections, long sentNanos, long inForceNanos) {
        this.device = device;
        this.flowMods = flowMods;
        this.rejections = ImmutableList.copyOf(rejections);
        this.sentNanos = sentNanos;
        this.inForceNanos = inForceNanos;
    }

    public DeviceId device() {
        return device;
    }

    /**
     * Flow-mods sent in the batch (adds and deletes; a reconnect's delete-all counts).
     *
     * @return count
     */
    public int flowMods() {
        return flowMods;
    }

    /**
     * The flow-mods the switch refused.
     *
     * @return rejections, empty if all are in force
     */
    public List<RuleRejection> rejections() {
        return rejections;
    }

    public boolean allInForce() {
        return rejections.isEmpty();
    }

    /**
     * {@link System#nanoTime()} when the batch was handed to the connection.
     *
     * @return nanos
     */
    public long sentNanos() {
        return sentNanos;
    }

    /**
     * {@link System#nanoTime()} when the barrier reply arrived: the rules are in force from here.
     *
     * @return nanos
     */
    public long inForceNanos() {
        return inForceNanos;
    }

    @Override
    public String toString() {
        return device + ": " + flowMods + " flow-mods in force after " + (inForceNanos - sentNanos) / 1000 + " us"
                + (rejections.isEmpty() ? "" : ", refused " + rejections);
    }
}
