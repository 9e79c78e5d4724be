package org.planck.app.inband;

/**
 * Names and defaults of the INT port state component's configuration properties.
 */
public final class OsgiPropertyConstants {
    private OsgiPropertyConstants() {
    }

    /** A port's INT state not updated this long expires (collectors re-send every value each second). */
    public static final String INT_IDLE_TIMEOUT_MS = "intIdleTimeoutMs";
    public static final int INT_IDLE_TIMEOUT_MS_DEFAULT = 3000;

    public static final String INT_SWEEP_INTERVAL_MS = "intSweepIntervalMs";
    public static final int INT_SWEEP_INTERVAL_MS_DEFAULT = 500;

    /** Most ports with INT state; signals of further new ports are dropped and counted. */
    public static final String MAX_INT_PORTS = "maxIntPorts";
    public static final int MAX_INT_PORTS_DEFAULT = 65536;

    /** Most flows with PINT state; events of further new flows are refused and counted. */
    public static final String MAX_PINT_FLOWS = "maxPintFlows";
    public static final int MAX_PINT_FLOWS_DEFAULT = 100_000;

    /** A flow without PINT events or moves this long expires (collectors send a path once per change). */
    public static final String PINT_IDLE_TIMEOUT_MS = "pintIdleTimeoutMs";
    public static final int PINT_IDLE_TIMEOUT_MS_DEFAULT = 60_000;

    /** How long a moved flow may go without a trace of its new path before it counts as non-conforming. */
    public static final String PINT_CONFIRM_TIMEOUT_MS = "pintConfirmTimeoutMs";
    public static final int PINT_CONFIRM_TIMEOUT_MS_DEFAULT = 1000;

    /** Period of the PINT sweep (expiry, confirmation timeouts), milliseconds. */
    public static final String PINT_SWEEP_INTERVAL_MS = "pintSweepIntervalMs";
    public static final int PINT_SWEEP_INTERVAL_MS_DEFAULT = 250;
}
