package org.planck.lab.experiment;

import org.apache.commons.math3.distribution.TDistribution;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The mean difference of paired observations (one pair per seed: the same workload pattern
 * under two modes) and its two-sided 95 % confidence interval from Student's t distribution with
 * n - 1 degrees of freedom; or, with {@link #ofRatio}, the same for the logarithm of each pair's
 * ratio, reported back as a relative gain.
 */
public final class PairedDifference {
    private final int n;
    private final double mean;
    private final double halfWidth;
    private final boolean ratio;

    private PairedDifference(int n, double mean, double halfWidth, boolean ratio) {
        this.n = n;
        this.mean = mean;
        this.halfWidth = halfWidth;
        this.ratio = ratio;
    }

    /**
     * The difference a - b over pairs.
     *
     * @param a first mode's value per pair
     * @param b second mode's value per pair, same order
     * @return the mean difference and its interval (infinite half-width for a single pair)
     */
    public static PairedDifference of(double[] a, double[] b) {
        checkArgument(a.length == b.length && a.length > 0, "need equally many pairs, at least one");
        double[] d = new double[a.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = a[i] - b[i];
        }
        return over(d, false);
    }

    /**
     * The gain a / b - 1 over pairs, for effects that scale with the pair (a workload's seeds
     * differ in how much traffic can flow at all, and what TE gains grows with it): the t interval
     * of the mean of ln(a / b), reported as the gain of the geometric mean ratio.
     *
     * @param a first mode's value per pair, all positive
     * @param b second mode's value per pair, same order, all positive
     * @return the gain and its interval, as fractions (0.1: a is 10 % above b)
     */
    public static PairedDifference ofRatio(double[] a, double[] b) {
        checkArgument(a.length == b.length && a.length > 0, "need equally many pairs, at least one");
        double[] d = new double[a.length];
        for (int i = 0; i < d.length; i++) {
            checkArgument(a[i] > 0 && b[i] > 0, "a ratio needs positive values, got %s / %s", a[i], b[i]);
            d[i] = Math.log(a[i] / b[i]);
        }
        return over(d, true);
    }

    private static PairedDifference over(double[] d, boolean ratio) {
        int n = d.length;
        double sum = 0;
        for (double x : d) {
            sum += x;
        }
        double mean = sum / n;
        if (n == 1) {
            return new PairedDifference(1, mean, Double.POSITIVE_INFINITY, ratio);
        }
        double ss = 0;
        for (double x : d) {
            ss += (x - mean) * (x - mean);
        }
        double sd = Math.sqrt(ss / (n - 1));
        return new PairedDifference(n, mean, tQuantile975(n - 1) * sd / Math.sqrt(n), ratio);
    }

    /**
     * t(0.975, df), the two-sided 95 % quantile.
     *
     * @param df degrees of freedom, >= 1
     * @return quantile
     */
    static double tQuantile975(int df) {
        checkArgument(df >= 1, "df must be >= 1");
        return new TDistribution(null, df).inverseCumulativeProbability(0.975);
    }

    public int pairs() {
        return n;
    }

    /**
     * The mean difference, or for a ratio the gain of the geometric mean ratio.
     *
     * @return value
     */
    public double mean() {
        return ratio ? Math.expm1(mean) : mean;
    }

    public double low() {
        return ratio ? Math.expm1(mean - halfWidth) : mean - halfWidth;
    }

    public double high() {
        return ratio ? Math.expm1(mean + halfWidth) : mean + halfWidth;
    }

    /**
     * Whether the whole interval is above zero.
     *
     * @return true if the lower bound is positive
     */
    public boolean aboveZero() {
        return low() > 0;
    }
}
