package org.planck.app.admission.algo;

import com.google.common.collect.ImmutableMap;

import java.util.Map;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Outcome of an admission check: the path chosen and every admitted flow's bound with the new
 * flow in, or the reason no candidate path works (which hop, which bound).
 */
public final class AdmissionVerdict {
    private final GuaranteePath path;
    private final long boundNanos;
    private final Map<String, Long> boundsNanos;
    private final String reason;

    private AdmissionVerdict(GuaranteePath path, long boundNanos, Map<String, Long> bounds, String reason) {
        this.path = path;
        this.boundNanos = boundNanos;
        this.boundsNanos = bounds;
        this.reason = reason;
    }

    static AdmissionVerdict admit(GuaranteePath path, long boundNanos, Map<String, Long> bounds) {
        return new AdmissionVerdict(checkNotNull(path), boundNanos, ImmutableMap.copyOf(bounds), null);
    }

    static AdmissionVerdict reject(String reason) {
        return new AdmissionVerdict(null, -1, ImmutableMap.of(), checkNotNull(reason));
    }

    public boolean admitted() {
        return path != null;
    }

    /**
     * The chosen path.
     *
     * @return path if admitted
     */
    public Optional<GuaranteePath> path() {
        return Optional.ofNullable(path);
    }

    /**
     * The new flow's end-to-end delay bound.
     *
     * @return ns, or -1 if rejected
     */
    public long boundNanos() {
        return boundNanos;
    }

    /**
     * Every admitted flow's bound once the new flow is in (excluding the new flow).
     *
     * @return id to bound in ns
     */
    public Map<String, Long> boundsNanos() {
        return boundsNanos;
    }

    /**
     * Why the flow was rejected.
     *
     * @return reason if rejected
     */
    public Optional<String> reason() {
        return Optional.ofNullable(reason);
    }

    @Override
    public String toString() {
        return admitted() ? "admit " + path + " bound " + boundNanos + "ns" : "reject: " + reason;
    }
}
