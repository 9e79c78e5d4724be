package org.planck.api.admission;

/**
 * Admission decisions taken by this node since activation.
 *
 * @param admitted           requests admitted
 * @param rejectedBadRequest requests refused as malformed (unknown host, deadline below fixed latency)
 * @param rejectedNoCapacity requests refused because no path had room
 * @param movesVetoed        TE moves refused to protect a guarantee
 * @param maxDecisionMicros  slowest admission decision
 */
public final class AdmissionCounters {
    private final long admitted;
    private final long rejectedBadRequest;
    private final long rejectedNoCapacity;
    private final long movesVetoed;
    private final long maxDecisionMicros;

    public AdmissionCounters(long admitted, long rejectedBadRequest, long rejectedNoCapacity, long movesVetoed,
                             long maxDecisionMicros) {
        this.admitted = admitted;
        this.rejectedBadRequest = rejectedBadRequest;
        this.rejectedNoCapacity = rejectedNoCapacity;
        this.movesVetoed = movesVetoed;
        this.maxDecisionMicros = maxDecisionMicros;
    }

    public long admitted() {
        return admitted;
    }

    public long rejectedBadRequest() {
        return rejectedBadRequest;
    }

    public long rejectedNoCapacity() {
        return rejectedNoCapacity;
    }

    public long movesVetoed() {
        return movesVetoed;
    }

    public long maxDecisionMicros() {
        return maxDecisionMicros;
    }
}
