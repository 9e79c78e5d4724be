package org.planck.lab.experiment;

import org.planck.lab.sched.LoopThreads;
import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * What fabric a run needs: its shape, link rate and control address. Written as the
 * {@code planck-emu fabric --config} file (TOML).
 */
public final class FabricSpec {
    /** Topology shapes. */
    public enum Shape {
        /** k=4 fat tree: 20 switches, 16 hosts. */
        FAT_TREE,
        /** One non-blocking switch with a port per host. */
        SINGLE_SWITCH
    }

    /** Fat-tree arity of the experiment. */
    public static final int K = 4;
    /** Hosts of the experiment: k^3/4. */
    public static final int HOSTS = K * K * K / 4;
    /** Path length the switches' PINT layer probabilities are tuned for: the fat tree's longest path. */
    public static final int PINT_PATH_HOPS = 5;
    /** PINT hash seed of the lab (the collector's pint-live default). */
    public static final long PINT_SEED = 2020;

    private final Shape shape;
    private final long linkBps;
    private final String controlListen;
    /**
     * Without spinning, the fabric engine sleeps until this many microseconds of timeslots are
     * due, then runs them back to back ({@code fabric.batch_us}).
     */
    public static final int BATCH_US = 200;

    private final boolean spin;
    private final int pintPathBits;
    /** INT on the switches, or null. */
    private IntSourceSpec intSource;

    /**
     * A fabric.
     *
     * @param shape         topology
     * @param linkBps       rate of every link and host port
     * @param controlListen control API address, host:port
     */
    public FabricSpec(Shape shape, long linkBps, String controlListen) {
        this(shape, linkBps, controlListen, false);
    }

    /**
     * A fabric.
     *
     * @param shape         topology
     * @param linkBps       rate of every link and host port
     * @param controlListen control API address, host:port
     * @param spin          busy-wait for each timeslot (exact pacing, one core busy) instead of sleeping
     */
    public FabricSpec(Shape shape, long linkBps, String controlListen, boolean spin) {
        this(shape, linkBps, controlListen, spin, 0);
    }

    /**
     * A fabric whose switches may run PINT path tracing.
     *
     * @param shape         topology
     * @param linkBps       rate of every link and host port
     * @param controlListen control API address, host:port
     * @param spin          busy-wait for each timeslot instead of sleeping
     * @param pintPathBits  bits of the IPv4 ID each packet's path digest takes, 0 (off) to 16
     */
    public FabricSpec(Shape shape, long linkBps, String controlListen, boolean spin, int pintPathBits) {
        checkArgument(pintPathBits >= 0 && pintPathBits <= 16, "PINT path bits must be 0-16");
        this.pintPathBits = pintPathBits;
        this.shape = checkNotNull(shape, "shape");
        checkArgument(linkBps > 0, "link rate must be positive");
        this.linkBps = linkBps;
        this.controlListen = checkNotNull(controlListen, "controlListen");
        this.spin = spin;
    }

    /**
     * The same fabric with INT on its switches.
     *
     * @param spec INT settings, or null for none
     * @return this
     */
    public FabricSpec withInt(IntSourceSpec spec) {
        this.intSource = spec;
        return this;
    }

    public Shape shape() {
        return shape;
    }

    public long linkBps() {
        return linkBps;
    }

    public String controlListen() {
        return controlListen;
    }

    /**
     * The {@code planck-emu fabric --config} file (TOML): {@code [fabric]} topology and link rate,
     * real-time clock, {@code [control]} listen address. Everything else keeps the fabric's
     * defaults (drop-tail queues of 100 packets, 1500-byte MTU).
     *
     * @return TOML text
     */
    public String toToml() {
        String topology = shape == Shape.FAT_TREE ? "fattree:" + K : "switch:" + HOSTS;
        return "[fabric]\n"
                + "topology = " + tomlString(topology) + "\n"
                + "link_gbps = " + String.format(java.util.Locale.ROOT, "%.3f", linkBps / 1e9) + "\n"
                + "mode = \"realtime\"\n"
                + "spin = " + spin + "\n"
                // Not spinning: the engine sleeps until this much time of slots is due, then
                // runs them back to back (samples leave up to this late; rules are exact).
                + "batch_us = " + BATCH_US + "\n"
                // The engine at the loop's priority: at half of it (5 against 10), two runs
                // of seeds 1-3 and 4-6 had a slower loop (p50 2.3-2.5 ms against 1.6-2.0)
                // and the fabric fell further behind (docs/lab.md).
                + "engine_rt_priority = " + LoopThreads.priority() + "\n"
                + "\n[control]\n"
                + "listen = " + tomlString(controlListen) + "\n"
                // The fabric's control API answers the loop's rule batches: same priority as
                // the loop's own threads.
                + "rt_priority = " + LoopThreads.priority() + "\n"
                // PINT on the switches (docs/pint.md): the collector's pint-live decodes with the
                // same bits, path length and seed.
                + (pintPathBits > 0 ? "\n[pint]\npath_bits = " + pintPathBits + "\npath_hops = " + PINT_PATH_HOPS
                        + "\nseed = " + PINT_SEED + "\n" : "")
                + (intSource != null ? intSource.toToml() : "");
    }

    /** A TOML basic string; the values written here are addresses and names, escaped anyway. */
    private static String tomlString(String v) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : v.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
