package org.planck.app.telemetry;

/**
 * Names and defaults of the telemetry component's configuration properties.
 */
public final class OsgiPropertyConstants {
    private OsgiPropertyConstants() {
    }

    public static final String FLOW_IDLE_TIMEOUT_MS = "flowIdleTimeoutMs";
    public static final int FLOW_IDLE_TIMEOUT_MS_DEFAULT = 2000;

    public static final String SWEEP_INTERVAL_MS = "sweepIntervalMs";
    public static final int SWEEP_INTERVAL_MS_DEFAULT = 250;

    public static final String MAX_FLOW_RECORDS = "maxFlowRecords";
    public static final int MAX_FLOW_RECORDS_DEFAULT = 1_000_000;
}
