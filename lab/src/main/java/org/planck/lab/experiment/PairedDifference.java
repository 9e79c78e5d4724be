package org.planck.lab.experiment;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The mean difference of paired observations (one pair per seed: the same workload pattern
 * under two modes) and its two-sided 95 % confidence interval from Student's t distribution with
 * n - 1 degrees of freedom.
 */
public final class PairedDifference {
    /** Two-sided 95 % quantiles t(0.975, df) for df = 1..30. */
    private static final double[] T975 = {
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    };

    private final int n;
    private final double mean;
    private final double halfWidth;

    private PairedDifference(int n, double mean, double halfWidth) {
        this.n = n;
        this.mean = mean;
        this.halfWidth = halfWidth;
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
        int n = a.length;
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += a[i] - b[i];
        }
        double mean = sum / n;
        if (n == 1) {
            return new PairedDifference(1, mean, Double.POSITIVE_INFINITY);
        }
        double ss = 0;
        for (int i = 0; i < n; i++) {
            double d = a[i] - b[i] - mean;
            ss += d * d;
        }
        double sd = Math.sqrt(ss / (n - 1));
        return new PairedDifference(n, mean, tQuantile975(n - 1) * sd / Math.sqrt(n));
    }

    /**
     * t(0.975, df): the table up to 30 degrees of freedom, the normal quantile beyond.
     *
     * @param df degrees of freedom, >= 1
     * @return quantile
     */
    static double tQuantile975(int df) {
        checkArgument(df >= 1, "df must be >= 1");
        return df <= T975.length ? T975[df - 1] : 1.960;
    }

    public int pairs() {
        return n;
    }

    public double mean() {
        return mean;
    }

    public double low() {
        return mean - halfWidth;
    }

    public double high() {
        return mean + halfWidth;
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
