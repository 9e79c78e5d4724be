package org.planck.api.inband;

/**
 * Counters of the controller's PINT handling (REST, CLI, metrics).
 *
 * @param flows         flows with PINT state now
 * @param paths         PINT_PATH events applied
 * @param latencies     PINT_HOP_LATENCY events applied
 * @param refused       events of a new flow beyond the table's bound, dropped
 * @param expired       flows removed after their idle timeout
 * @param nonConforming times a flow became NON_CONFORMING
 * @param confirmed     moves confirmed by a trace of the new path
 */
public final class PintCounters {
    private final long flows;
    private final long paths;
    private final long latencies;
    private final long refused;
    private final long expired;
    private final long nonConforming;
    private final long confirmed;

    /**
     * Creates a snapshot.
     *
     * @param flows         flows with PINT state
     * @param paths         path events applied
     * @param latencies     latency events applied
     * @param refused       events dropped at the table bound
     * @param expired       flows expired
     * @param nonConforming transitions to NON_CONFORMING
     * @param confirmed     moves confirmed
     */
    public PintCounters(long flows, long paths, long latencies, long refused, long expired, long nonConforming,
                        long confirmed) {
        this.flows = flows;
        this.paths = paths;
        this.latencies = latencies;
        this.refused = refused;
        this.expired = expired;
        this.nonConforming = nonConforming;
        this.confirmed = confirmed;
    }

    public long flows() {
        return flows;
    }

    public long paths() {
        return paths;
    }

    public long latencies() {
        return latencies;
    }

    public long refused() {
        return refused;
    }

    public long expired() {
        return expired;
    }

    public long nonConforming() {
        return nonConforming;
    }

    public long confirmed() {
        return confirmed;
    }

    @Override
    public String toString() {
        return "PintCounters{flows=" + flows + ", paths=" + paths + ", latencies=" + latencies + ", refused="
                + refused + ", expired=" + expired + ", nonConforming=" + nonConforming + ", confirmed="
                + confirmed + "}";
    }
}
