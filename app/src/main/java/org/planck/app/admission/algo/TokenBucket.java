package org.planck.app.admission.algo;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Token-bucket (affine) arrival curve alpha(t) = burst + rate * t for t > 0: no more than that
 * many bytes arrive in any window of length t. Units are the caller's (here bytes and seconds).
 */
public final class TokenBucket {
    private final Rational rate;
    private final Rational burst;

    private TokenBucket(Rational rate, Rational burst) {
        this.rate = rate;
        this.burst = burst;
    }

    /**
     * An arrival curve.
     *
     * @param rate  sustained rate r >= 0
     * @param burst burst b >= 0
     * @return gamma_{r,b}
     */
    public static TokenBucket of(Rational rate, Rational burst) {
        checkNotNull(rate, "rate");
        checkNotNull(burst, "burst");
        checkArgument(rate.signum() >= 0, "rate must be >= 0");
        checkArgument(burst.signum() >= 0, "burst must be >= 0");
        return new TokenBucket(rate, burst);
    }

    public static TokenBucket of(long rate, long burst) {
        return of(Rational.of(rate), Rational.of(burst));
    }

    public Rational rate() {
        return rate;
    }

    public Rational burst() {
        return burst;
    }

    /**
     * Aggregate of two flows: arrival curves of a FIFO aggregate add up.
     *
     * @param o the other flow's curve
     * @return sum curve
     */
    public TokenBucket plus(TokenBucket o) {
        return new TokenBucket(rate.plus(o.rate), burst.plus(o.burst));
    }

    /**
     * Scales both parameters, e.g. to turn bytes into switch work when each byte costs more
     * than one unit of service (per-packet overheads).
     *
     * @param factor scale, >= 0
     * @return scaled curve
     */
    public TokenBucket scaled(Rational factor) {
        checkArgument(factor.signum() >= 0, "factor must be >= 0");
        return new TokenBucket(rate.times(factor), burst.times(factor));
    }

    /**
     * The arrival curve of this flow at the output of a server that delays it by at most
     * {@code delay}: alpha(t + d), i.e. the burst grows by rate * d (output-burst propagation).
     *
     * @param delay delay bound of the server, >= 0
     * @return output arrival curve
     */
    public TokenBucket delayedBy(Rational delay) {
        checkArgument(delay.signum() >= 0, "delay must be >= 0");
        return new TokenBucket(rate, burst.plus(rate.times(delay)));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TokenBucket)) {
            return false;
        }
        TokenBucket t = (TokenBucket) o;
        return rate.equals(t.rate) && burst.equals(t.burst);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rate, burst);
    }

    @Override
    public String toString() {
        return "TokenBucket{r=" + rate + ", b=" + burst + "}";
    }
}
