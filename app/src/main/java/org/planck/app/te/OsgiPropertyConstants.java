package org.planck.app.te;

/**
 * Names and defaults of the traffic-engineering component's configuration properties.
 */
public final class OsgiPropertyConstants {
    private OsgiPropertyConstants() {
    }

    /** STATIC, POLL or PLANCK. */
    public static final String TE_MODE = "teMode";
    public static final String TE_MODE_DEFAULT = "PLANCK";

    /** Poll mode: period of reading port delta statistics. */
    public static final String POLL_PERIOD_MS = "pollPeriodMs";
    public static final int POLL_PERIOD_MS_DEFAULT = 100;

    /** Period of re-reading all live flows into the load view (rates, paths, expiry). */
    public static final String LOAD_SYNC_MS = "loadSyncMs";
    public static final int LOAD_SYNC_MS_DEFAULT = 50;
}
