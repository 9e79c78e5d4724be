package org.planck.lab.experiment;

import java.util.Locale;
import java.util.regex.Pattern;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * INT on the emulated fabric (the {@code [int]} section of {@code planck-emu fabric --config},
 * docs/emulator-fabric.md): every edge switch is INT source and sink, every other switch transit;
 * sources sample 1 in {@code sampleOneIn} packets from hosts; sinks send telemetry reports of
 * {@code version} ("1.0" or "2") as UDP frames on {@code interface}, to the collector's report
 * address on the other end of that veth. Queue occupancy is in packets, the emulated switch's unit.
 */
public final class IntSourceSpec {
    /** Report frames' destination (the collector's INT socket, on the telemetry veth's far end). */
    public static final String COLLECTOR_IP = "198.18.14.1";
    public static final String COLLECTOR_MAC = "02:00:00:00:1e:02";
    public static final int COLLECTOR_PORT = 54321;
    private static final Pattern IFNAME = Pattern.compile("[A-Za-z0-9_.-]{1,15}");

    private final String iface;
    private final String version;
    private final int sampleOneIn;
    private final int maxReportsPerMs;

    /**
     * INT on every switch of the fabric.
     *
     * @param iface           telemetry interface the sinks send reports on
     * @param version         telemetry report version, "1.0" or "2"
     * @param sampleOneIn     a source samples 1 packet in this many from hosts, 1..1000000
     * @param maxReportsPerMs reports per ms of emulator time (more are dropped and counted), 1..1000000
     */
    public IntSourceSpec(String iface, String version, int sampleOneIn, int maxReportsPerMs) {
        checkArgument(IFNAME.matcher(checkNotNull(iface, "iface")).matches(), "bad interface name %s", iface);
        checkArgument("1.0".equals(version) || "2".equals(version), "INT report version must be 1.0 or 2, got %s",
                      version);
        checkArgument(sampleOneIn >= 1 && sampleOneIn <= 1_000_000, "sampling must be 1 in 1..1000000");
        checkArgument(maxReportsPerMs >= 1 && maxReportsPerMs <= 1_000_000, "reports per ms must be 1..1000000");
        this.iface = iface;
        this.version = version;
        this.sampleOneIn = sampleOneIn;
        this.maxReportsPerMs = maxReportsPerMs;
    }

    public String iface() {
        return iface;
    }

    public String version() {
        return version;
    }

    public int sampleOneIn() {
        return sampleOneIn;
    }

    public int maxReportsPerMs() {
        return maxReportsPerMs;
    }

    /**
     * The fabric config's {@code [int]} and {@code [int.report]} sections.
     *
     * @return TOML text
     */
    public String toToml() {
        return String.format(Locale.ROOT, "%n[int]%ndomain = \"edges\"%nversion = \"%s\"%nsample_one_in = %d%n"
                        + "max_reports_per_ms = %d%n%n[int.report]%ninterface = \"%s\"%ndst_mac = \"%s\"%n"
                        + "dst_ip = \"%s\"%ndst_port = %d%n",
                version, sampleOneIn, maxReportsPerMs, iface, COLLECTOR_MAC, COLLECTOR_IP, COLLECTOR_PORT);
    }

    /**
     * For the report's settings line.
     *
     * @return a short description
     */
    public String describe() {
        return String.format(Locale.ROOT, "INT on every switch (edges source and sink), 1 in %d host packets sampled, "
                + "telemetry report v%s, at most %d reports per ms", sampleOneIn, version, maxReportsPerMs);
    }
}
