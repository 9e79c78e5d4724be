package org.planck.api.inband;

/**
 * Counters of the controller's INT signal handling (exported as metrics and over REST).
 *
 * @param applied   signals applied to a port's state
 * @param stale     signals older than the state's newest of their kind, ignored
 * @param dropped   signals for a new port beyond the table's bound, dropped
 * @param expired   port states removed after their idle timeout
 * @param congested INT queue congestion marks set
 * @param cleared   INT queue congestion marks lifted (by occupancy or expiry)
 */
public final class IntCounters {
    private final long applied;
    private final long stale;
    private final long dropped;
    private final long expired;
    private final long congested;
    private final long cleared;

    /**
     * Creates a snapshot.
     *
     * @param applied   signals applied
     * @param stale     stale signals ignored
     * @param dropped   signals dropped at the table bound
     * @param expired   port states expired
     * @param congested congestion marks set
     * @param cleared   congestion marks lifted
     */
    public IntCounters(long applied, long stale, long dropped, long expired, long congested, long cleared) {
        this.applied = applied;
        this.stale = stale;
        this.dropped = dropped;
        this.expired = expired;
        this.congested = congested;
        this.cleared = cleared;
    }

    public long applied() {
        return applied;
    }

    public long stale() {
        return stale;
    }

    public long dropped() {
        return dropped;
    }

    public long expired() {
        return expired;
    }

    public long congested() {
        return congested;
    }

    public long cleared() {
        return cleared;
    }
}
