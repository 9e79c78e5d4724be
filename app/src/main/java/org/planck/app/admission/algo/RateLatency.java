package org.planck.app.admission.algo;

import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Rate-latency service curve beta(t) = rate * max(0, t - latency): the server has served at
 * least that much of any backlogged period of length t.
 */
public final class RateLatency {
    private final Rational rate;
    private final Rational latency;

    private RateLatency(Rational rate, Rational latency) {
        this.rate = rate;
        this.latency = latency;
    }

    /**
     * A service curve.
     *
     * @param rate    R > 0
     * @param latency T >= 0
     * @return beta_{R,T}
     */
    public static RateLatency of(Rational rate, Rational latency) {
        checkNotNull(rate, "rate");
        checkNotNull(latency, "latency");
        checkArgument(rate.signum() > 0, "rate must be > 0");
        checkArgument(latency.signum() >= 0, "latency must be >= 0");
        return new RateLatency(rate, latency);
    }

    public Rational rate() {
        return rate;
    }

    public Rational latency() {
        return latency;
    }

    /**
     * Min-plus convolution of two rate-latency curves (two servers in tandem):
     * beta_{R1,T1} (x) beta_{R2,T2} = beta_{min(R1,R2), T1+T2}. Pay bursts only once.
     *
     * @param next the downstream server
     * @return the concatenated service curve
     */
    public RateLatency concatenate(RateLatency next) {
        return new RateLatency(rate.min(next.rate), latency.plus(next.latency));
    }

    /**
     * Delay bound: the horizontal deviation h(alpha, beta) = T + b/R, valid when r <= R.
     *
     * @param arrival the flow's (or aggregate's) arrival curve
     * @return the bound, or empty if the arrival rate exceeds the service rate (unbounded)
     */
    public Optional<Rational> delayBound(TokenBucket arrival) {
        if (arrival.rate().compareTo(rate) > 0) {
            return Optional.empty();
        }
        return Optional.of(latency.plus(arrival.burst().dividedBy(rate)));
    }

    /**
     * Backlog bound: the vertical deviation v(alpha, beta) = b + r*T, valid when r <= R.
     *
     * @param arrival the arrival curve
     * @return the bound, or empty if unbounded
     */
    public Optional<Rational> backlogBound(TokenBucket arrival) {
        if (arrival.rate().compareTo(rate) > 0) {
            return Optional.empty();
        }
        return Optional.of(arrival.burst().plus(arrival.rate().times(latency)));
    }

    /**
     * Output arrival curve of a flow through this server: alpha deconvolved by beta, which for
     * gamma_{r,b} and beta_{R,T} is gamma_{r, b + r*T} (Le Boudec and Thiran, Thm 1.4.3).
     *
     * @param arrival arrival curve at the input
     * @return arrival curve at the output, or empty if unbounded
     */
    public Optional<TokenBucket> outputBound(TokenBucket arrival) {
        if (arrival.rate().compareTo(rate) > 0) {
            return Optional.empty();
        }
        return Optional.of(arrival.delayedBy(latency));
    }

    /**
     * Leftover service for one flow under blind multiplexing (no assumption about the order in
     * which the server picks packets): beta_{R-r', T + (b' + r'T)/(R-r')} for cross traffic
     * gamma_{r',b'}. This is the curve a flow gets from a switch whose ports share one
     * processor when nothing about its arbitration is known.
     *
     * @param cross the other traffic through the same server
     * @return leftover service, or empty if the cross traffic uses all the rate
     */
    public Optional<RateLatency> leftover(TokenBucket cross) {
        Rational left = rate.minus(cross.rate());
        if (left.signum() <= 0) {
            return Optional.empty();
        }
        Rational t = latency.plus(cross.burst().plus(cross.rate().times(latency)).dividedBy(left));
        return Optional.of(new RateLatency(left, t));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RateLatency)) {
            return false;
        }
        RateLatency r = (RateLatency) o;
        return rate.equals(r.rate) && latency.equals(r.latency);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rate, latency);
    }

    @Override
    public String toString() {
        return "RateLatency{R=" + rate + ", T=" + latency + "}";
    }
}
