package org.planck.app.admission.algo;

import java.math.BigInteger;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * An exact rational number, always in lowest terms with a positive denominator. Network-calculus
 * bounds are computed with it so that no rounding can make a bound smaller than the truth; only
 * the final conversion to an integer unit rounds, and it rounds up ({@link #ceil()}).
 */
public final class Rational implements Comparable<Rational> {
    public static final Rational ZERO = new Rational(BigInteger.ZERO, BigInteger.ONE);
    public static final Rational ONE = new Rational(BigInteger.ONE, BigInteger.ONE);

    private final BigInteger num;
    private final BigInteger den;

    private Rational(BigInteger num, BigInteger den) {
        this.num = num;
        this.den = den;
    }

    /**
     * A rational num/den, reduced.
     *
     * @param num numerator
     * @param den denominator, non-zero
     * @return the value
     */
    public static Rational of(BigInteger num, BigInteger den) {
        checkNotNull(num, "num");
        checkNotNull(den, "den");
        checkArgument(den.signum() != 0, "zero denominator");
        if (den.signum() < 0) {
            num = num.negate();
            den = den.negate();
        }
        BigInteger g = num.gcd(den);
        if (!g.equals(BigInteger.ONE) && g.signum() != 0) {
            num = num.divide(g);
            den = den.divide(g);
        }
        if (num.signum() == 0) {
            return ZERO;
        }
        return new Rational(num, den);
    }

    public static Rational of(long num, long den) {
        return of(BigInteger.valueOf(num), BigInteger.valueOf(den));
    }

    public static Rational of(long value) {
        return of(BigInteger.valueOf(value), BigInteger.ONE);
    }

    public BigInteger numerator() {
        return num;
    }

    public BigInteger denominator() {
        return den;
    }

    public Rational plus(Rational o) {
        return of(num.multiply(o.den).add(o.num.multiply(den)), den.multiply(o.den));
    }

    public Rational minus(Rational o) {
        return of(num.multiply(o.den).subtract(o.num.multiply(den)), den.multiply(o.den));
    }

    public Rational times(Rational o) {
        return of(num.multiply(o.num), den.multiply(o.den));
    }

    /**
     * Quotient.
     *
     * @param o divisor, non-zero
     * @return this / o
     */
    public Rational dividedBy(Rational o) {
        checkArgument(o.num.signum() != 0, "division by zero");
        return of(num.multiply(o.den), den.multiply(o.num));
    }

    public int signum() {
        return num.signum();
    }

    public Rational max(Rational o) {
        return compareTo(o) >= 0 ? this : o;
    }

    public Rational min(Rational o) {
        return compareTo(o) <= 0 ? this : o;
    }

    /**
     * Smallest integer not below this value: the direction in which a bound may be rounded.
     *
     * @return ceiling
     */
    public BigInteger ceil() {
        BigInteger[] qr = num.divideAndRemainder(den);
        return qr[1].signum() > 0 ? qr[0].add(BigInteger.ONE) : qr[0];
    }

    public double toDouble() {
        return num.doubleValue() / den.doubleValue();
    }

    @Override
    public int compareTo(Rational o) {
        return num.multiply(o.den).compareTo(o.num.multiply(den));
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Rational)) {
            return false;
        }
        Rational r = (Rational) o;
        return num.equals(r.num) && den.equals(r.den);
    }

    @Override
    public int hashCode() {
        return Objects.hash(num, den);
    }

    @Override
    public String toString() {
        return den.equals(BigInteger.ONE) ? num.toString() : num + "/" + den;
    }
}
