package org.planck.api.inband;

import com.google.common.base.MoreObjects;
import org.onosproject.net.ConnectPoint;
import org.planck.api.telemetry.IntPortSignal;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * What INT reports last said about one switch egress port: the latest occupancy of each queue,
 * the hop latency and the egress utilisation, when they were reported, and whether the port's
 * queues count as congested (occupancy crossed the configured threshold, with hysteresis).
 * Immutable; every update makes a new state.
 */
public final class IntPortState {
    /** Value of a signal no report has carried yet. */
    public static final long UNKNOWN = -1;

    private final ConnectPoint port;
    // Sorted queue ids and their occupancies: primitive arrays keep the replicated value compact.
    private final int[] queueIds;
    private final long[] queueOccupancy;
    private final long hopLatencyNs;
    private final long linkUtilization;
    private final long queueReportUs;
    private final long latencyReportUs;
    private final long utilizationReportUs;
    private final IntPortSignal.Cause lastCause;
    private final String collector;
    private final long updatedMillis;
    private final boolean queueCongested;

    private IntPortState(ConnectPoint port, int[] queueIds, long[] queueOccupancy, long hopLatencyNs,
                         long linkUtilization, long queueReportUs, long latencyReportUs, long utilizationReportUs,
                         IntPortSignal.Cause lastCause, String collector, long updatedMillis,
                         boolean queueCongested) {
        this.port = checkNotNull(port, "port");
        this.queueIds = queueIds;
        this.queueOccupancy = queueOccupancy;
        this.hopLatencyNs = hopLatencyNs;
        this.linkUtilization = linkUtilization;
        this.queueReportUs = queueReportUs;
        this.latencyReportUs = latencyReportUs;
        this.utilizationReportUs = utilizationReportUs;
        this.lastCause = lastCause;
        this.collector = collector;
        this.updatedMillis = updatedMillis;
        this.queueCongested = queueCongested;
    }

    /**
     * The state of a port no signal has reached yet.
     *
     * @param port the port
     * @return an empty state
     */
    public static IntPortState empty(ConnectPoint port) {
        return new IntPortState(port, new int[0], new long[0], UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN,
                null, null, 0, false);
    }

    /**
     * This state with one signal applied (value, its report time, cause and collector).
     *
     * @param s             the signal; its port must be this state's port
     * @param fromCollector collector that sent it
     * @param nowMillis     controller time of the update
     * @return the new state (queue congestion unchanged: {@link #withQueueCongested} decides it)
     */
    public IntPortState with(IntPortSignal s, String fromCollector, long nowMillis) {
        checkArgument(s.port().equals(port), "signal of %s applied to %s", s.port(), port);
        int[] ids = queueIds;
        long[] occ = queueOccupancy;
        long latency = hopLatencyNs;
        long util = linkUtilization;
        long qUs = queueReportUs;
        long lUs = latencyReportUs;
        long uUs = utilizationReportUs;
        switch (s.signal()) {
            case QUEUE_OCCUPANCY:
                int i = Arrays.binarySearch(queueIds, s.queue());
                if (i >= 0) {
                    occ = queueOccupancy.clone();
                    occ[i] = s.value();
                } else {
                    int at = -i - 1;
                    ids = new int[queueIds.length + 1];
                    occ = new long[queueIds.length + 1];
                    System.arraycopy(queueIds, 0, ids, 0, at);
                    System.arraycopy(queueOccupancy, 0, occ, 0, at);
                    ids[at] = s.queue();
                    occ[at] = s.value();
                    System.arraycopy(queueIds, at, ids, at + 1, queueIds.length - at);
                    System.arraycopy(queueOccupancy, at, occ, at + 1, queueIds.length - at);
                }
                qUs = Math.max(qUs, s.reportUs());
                break;
            case HOP_LATENCY:
                latency = s.value();
                lUs = s.reportUs();
                break;
            case LINK_UTILIZATION:
                util = s.value();
                uUs = s.reportUs();
                break;
            default:
                throw new IllegalArgumentException("unknown signal " + s.signal());
        }
        return new IntPortState(port, ids, occ, latency, util, qUs, lUs, uUs, s.cause(), fromCollector, nowMillis,
                queueCongested);
    }

    /**
     * This state with its queue congestion mark set or lifted.
     *
     * @param congested the mark
     * @return the new state
     */
    public IntPortState withQueueCongested(boolean congested) {
        return new IntPortState(port, queueIds, queueOccupancy, hopLatencyNs, linkUtilization, queueReportUs,
                latencyReportUs, utilizationReportUs, lastCause, collector, updatedMillis, congested);
    }

    public ConnectPoint port() {
        return port;
    }

    /**
     * Latest occupancy of each queue reported for the port.
     *
     * @return queue id to occupancy (the switch's unit), sorted by queue id
     */
    public Map<Integer, Long> queues() {
        Map<Integer, Long> m = new TreeMap<>();
        for (int i = 0; i < queueIds.length; i++) {
            m.put(queueIds[i], queueOccupancy[i]);
        }
        return Collections.unmodifiableMap(m);
    }

    /**
     * Largest latest occupancy over the port's queues.
     *
     * @return occupancy, or {@link #UNKNOWN} if no queue was reported
     */
    public long maxQueueOccupancy() {
        long max = UNKNOWN;
        for (long o : queueOccupancy) {
            max = Math.max(max, o);
        }
        return max;
    }

    /**
     * Hop latency at the switch.
     *
     * @return nanoseconds, or {@link #UNKNOWN}
     */
    public long hopLatencyNs() {
        return hopLatencyNs;
    }

    /**
     * Egress utilisation as the switch reports it.
     *
     * @return the value, or {@link #UNKNOWN}
     */
    public long linkUtilization() {
        return linkUtilization;
    }

    /**
     * Report time of the newest queue occupancy applied.
     *
     * @return µs since the epoch, or {@link #UNKNOWN}
     */
    public long queueReportUs() {
        return queueReportUs;
    }

    public long latencyReportUs() {
        return latencyReportUs;
    }

    public long utilizationReportUs() {
        return utilizationReportUs;
    }

    /**
     * Report time of the newest signal of the port, whichever kind.
     *
     * @return µs since the epoch, or {@link #UNKNOWN}
     */
    public long lastReportUs() {
        return Math.max(queueReportUs, Math.max(latencyReportUs, utilizationReportUs));
    }

    /**
     * Report time of the newest applied signal of a kind.
     *
     * @param signal the kind
     * @return µs since the epoch, or {@link #UNKNOWN}
     */
    public long reportUs(IntPortSignal.Signal signal) {
        switch (signal) {
            case QUEUE_OCCUPANCY:
                return queueReportUs;
            case HOP_LATENCY:
                return latencyReportUs;
            default:
                return utilizationReportUs;
        }
    }

    /**
     * Why the collector sent the last signal applied.
     *
     * @return the cause, or null for an empty state
     */
    public IntPortSignal.Cause lastCause() {
        return lastCause;
    }

    /**
     * Collector of the last signal applied.
     *
     * @return collector id, or null for an empty state
     */
    public String collector() {
        return collector;
    }

    /**
     * Controller time of the last update (idle expiry runs on it).
     *
     * @return ms since the epoch
     */
    public long updatedMillis() {
        return updatedMillis;
    }

    /**
     * Whether the port's queue occupancy counts as congested.
     *
     * @return the mark
     */
    public boolean queueCongested() {
        return queueCongested;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof IntPortState)) {
            return false;
        }
        IntPortState s = (IntPortState) o;
        return hopLatencyNs == s.hopLatencyNs && linkUtilization == s.linkUtilization
                && queueReportUs == s.queueReportUs && latencyReportUs == s.latencyReportUs
                && utilizationReportUs == s.utilizationReportUs && updatedMillis == s.updatedMillis
                && queueCongested == s.queueCongested && port.equals(s.port)
                && Arrays.equals(queueIds, s.queueIds) && Arrays.equals(queueOccupancy, s.queueOccupancy)
                && lastCause == s.lastCause && Objects.equals(collector, s.collector);
    }

    @Override
    public int hashCode() {
        return Objects.hash(port, Arrays.hashCode(queueIds), Arrays.hashCode(queueOccupancy), hopLatencyNs,
                linkUtilization, queueReportUs, updatedMillis, queueCongested);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("port", port).add("queues", queues())
                .add("hopLatencyNs", hopLatencyNs).add("linkUtilization", linkUtilization)
                .add("queueCongested", queueCongested).toString();
    }
}
