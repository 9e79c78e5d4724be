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
}
