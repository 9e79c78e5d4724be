package org.planck.api;

import com.google.common.base.MoreObjects;

/**
 * What the controller knows about pushing forwarding maps and config to one collector.
 * Counters are cumulative since the component started on this node.
 */
public final class CollectorPushStatus {
    private final String collectorId;
    private final long deliveredGeneration;
    private final long pendingGeneration;
    private final long delivered;
    private final long failedAttempts;
    private final long rejected;
    private final long superseded;
    private final long abandoned;
    private final String lastError;

    /**
     * Creates a status snapshot.
     *
     * @param collectorId         collector
     * @param deliveredGeneration generation of the newest map the collector accepted, -1 if none
     * @param pendingGeneration   generation waiting to be delivered, -1 if none
     * @param delivered           pushes answered 2xx
     * @param failedAttempts      attempts that failed (connection error, timeout, 5xx) and were retried
     * @param rejected            pushes the collector refused (4xx, incl. 409 for stale generation)
     * @param superseded          pending pushes replaced by a newer one before delivery
     * @param abandoned           pushes given up after the last retry
     * @param lastError           most recent error, empty if none
     */
    public CollectorPushStatus(String collectorId, long deliveredGeneration, long pendingGeneration,
                               long delivered, long failedAttempts, long rejected, long superseded,
                               long abandoned, String lastError) {
        this.collectorId = collectorId;
        this.deliveredGeneration = deliveredGeneration;
        this.pendingGeneration = pendingGeneration;
        this.delivered = delivered;
        this.failedAttempts = failedAttempts;
        this.rejected = rejected;
        this.superseded = superseded;
        this.abandoned = abandoned;
        this.lastError = lastError == null ? "" : lastError;
    }

    public String collectorId() {
        return collectorId;
    }

    public long deliveredGeneration() {
        return deliveredGeneration;
    }

    public long pendingGeneration() {
        return pendingGeneration;
    }

    public long delivered() {
        return delivered;
    }

    public long failedAttempts() {
        return failedAttempts;
    }

    public long rejected() {
        return rejected;
    }

    public long superseded() {
        return superseded;
    }

    public long abandoned() {
        return abandoned;
    }

    public String lastError() {
        return lastError;
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("collector", collectorId)
                .add("deliveredGeneration", deliveredGeneration).add("pendingGeneration", pendingGeneration)
                .add("delivered", delivered).add("failedAttempts", failedAttempts).add("rejected", rejected)
                .add("superseded", superseded).add("abandoned", abandoned).add("lastError", lastError).toString();
    }
}
