package org.planck.app.admission;

/**
 * Names and defaults of the admission component's properties: the switch model applied to
 * every switch (replace the defaults with a benchmarked model, docs/loko.md) and the analysis.
 * The defaults are a conservative guess for Open vSwitch's userspace datapath, not a measurement.
 */
public final class OsgiPropertyConstants {
    private OsgiPropertyConstants() {
    }

    /**
     * Switch model written by loko/switch_bench.py; overrides R, T and the per-packet cost
     * (empty: use the properties below).
     */
    public static final String MODEL_FILE = "switchModelFile";
    public static final String MODEL_FILE_DEFAULT = "";

    /** Shared service rate R of every switch, work bytes/s. */
    public static final String SERVICE_RATE = "serviceRateBytesPerSec";
    public static final long SERVICE_RATE_DEFAULT = 50_000_000L;

    /** Shared service latency T of every switch, µs. */
    public static final String SERVICE_LATENCY = "serviceLatencyMicros";
    public static final long SERVICE_LATENCY_DEFAULT = 100L;

    /** Per-packet cost, work bytes. */
    public static final String PACKET_OVERHEAD = "perPacketOverheadBytes";
    public static final long PACKET_OVERHEAD_DEFAULT = 300L;

    /** Bytes a switch holds without loss. */
    public static final String MAX_BACKLOG = "maxBacklogBytes";
    public static final long MAX_BACKLOG_DEFAULT = 2_000_000L;

    /** Work rate reserved for unguaranteed (policed) traffic per switch, bytes/s. */
    public static final String BEST_EFFORT_RATE = "bestEffortRateBytesPerSec";
    public static final long BEST_EFFORT_RATE_DEFAULT = 0L;

    /** Burst of unguaranteed traffic per switch, work bytes. */
    public static final String BEST_EFFORT_BURST = "bestEffortBurstBytes";
    public static final long BEST_EFFORT_BURST_DEFAULT = 0L;

    /** Largest frame anyone may send, bytes. */
    public static final String MTU = "mtuBytes";
    public static final int MTU_DEFAULT = 1514;

    /**
     * SHARED_SWITCH_ANY_ORDER (Loko's shared switch served in any order between its inputs, e.g. OVS
     * userspace: the default, since it holds whatever the order), SHARED_SWITCH (Loko, FIFO: only
     * for a switch known to serve first come first served) or PER_PORT (independent ports: only
     * for comparison, unsafe).
     */
    public static final String SCOPE = "analysisScope";
    public static final String SCOPE_DEFAULT = "SHARED_SWITCH_ANY_ORDER";

    /** A flow TE moves is assumed to burst this long at its rate, plus one MTU, µs. */
    public static final String MOVE_BURST = "teMoveBurstMicros";
    public static final long MOVE_BURST_DEFAULT = 1000L;
}
