package org.planck.lab.experiment;

/**
 * The link rate the experiment runs at and why: 10 Gb/s if the emulator kept real time at that
 * rate during a calibration run, else 1 Gb/s.
 */
public final class LinkRateDecision {
    /** 10 Gb/s. */
    public static final long TEN_GBPS = 10_000_000_000L;
    /** 1 Gb/s. */
    public static final long ONE_GBPS = 1_000_000_000L;

    private final long linkBps;
    private final String reason;

    /**
     * A decision.
     *
     * @param linkBps chosen rate
     * @param reason  why, for the report
     */
    public LinkRateDecision(long linkBps, String reason) {
        this.linkBps = linkBps;
        this.reason = reason;
    }

    public long linkBps() {
        return linkBps;
    }

    public String reason() {
        return reason;
    }

    /**
     * The decision from a calibration at 10 Gb/s.
     *
     * @param maxLagUs   the emulator's largest lag behind real time during calibration
     * @param limitUs    largest acceptable lag
     * @return 10 Gb/s if the lag stayed within the limit, else 1 Gb/s
     */
    public static LinkRateDecision fromCalibration(long maxLagUs, long limitUs) {
        if (maxLagUs <= limitUs) {
            return new LinkRateDecision(TEN_GBPS, "the emulator kept real time at 10 Gb/s (max lag "
                    + maxLagUs + " us <= " + limitUs + " us during calibration)");
        }
        return new LinkRateDecision(ONE_GBPS, "the emulator fell behind real time at 10 Gb/s (max lag "
                + maxLagUs + " us > " + limitUs + " us during calibration), so links run at 1 Gb/s");
    }

    /**
     * A rate fixed on the command line.
     *
     * @param linkBps rate
     * @return decision
     */
    public static LinkRateDecision fixed(long linkBps) {
        return new LinkRateDecision(linkBps, "fixed on the command line");
    }

    /**
     * The rate as text.
     *
     * @return e.g. "1 Gb/s"
     */
    public String label() {
        return linkBps % 1_000_000_000L == 0 ? linkBps / 1_000_000_000L + " Gb/s" : linkBps / 1e6 + " Mb/s";
    }
}
