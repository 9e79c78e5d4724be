package org.planck.lab.ovs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The OVS lab's mirrors, as the app's mirror plan configures them through OVSDB: a bridge's mirror
 * selects all its ports and outputs, truncated to a snap length, into its mirror port
 * ({@code <bridge>m}, a veth added by {@code experiment.sh}), whose tbf is the oversubscribed mirror
 * port: it drops what it cannot carry. The far ends go through the RSPAN bridge, which tags each
 * switch's copies with its number, to the collector.
 */
public final class OvsMirrors {
    private final String db;
    private final List<String> all;
    private final ObjectMapper mapper = new ObjectMapper();
    private List<String> on = List.of();
    private long[] baseline = {0, 0};
    private long rateBps;

    /**
     * Mirror control of a fabric.
     *
     * @param db      ovsdb-server socket ({@code unix:...})
     * @param bridges every bridge of the fabric
     */
    public OvsMirrors(String db, List<String> bridges) {
        this.db = db;
        this.all = List.copyOf(bridges);
    }

    /**
     * Mirrors exactly these bridges (empty: none) and starts their drop counters from zero.
     *
     * @param bridges     bridge names
     * @param rateBps     mirror port rate
     * @param bufferBytes mirror port buffer
     * @param snapLen     bytes kept of each mirrored frame
     * @throws InterruptedException if interrupted
     */
    public synchronized void set(List<String> bridges, long rateBps, long bufferBytes, int snapLen)
            throws InterruptedException {
        checkArgument(bridges.isEmpty() || (rateBps > 0 && bufferBytes > 0 && snapLen >= 64),
                      "mirror rate, buffer, snap length");
        List<String> cmd = new ArrayList<>(List.of("ovs-vsctl", "--db=" + db, "--timeout=30"));
        for (String b : all) {
            cmd.addAll(List.of("--", "clear", "bridge", b, "mirrors"));
        }
        for (String b : bridges) {
            checkArgument(all.contains(b), "no bridge %s", b);
            cmd.addAll(List.of("--", "--id=@p" + b, "get", "port", b + "m",
                               "--", "--id=@m" + b, "create", "mirror", "name=planck", "select-all=true",
                               "output-port=@p" + b, "snaplen=" + snapLen,
                               "--", "set", "bridge", b, "mirrors=@m" + b));
        }
        run(cmd, null);
        if (!bridges.isEmpty()) {
            // The mirror ports' rate and buffer (tbf's burst holds a few truncated copies), in one tc.
            StringBuilder batch = new StringBuilder();
            for (String b : bridges) {
                batch.append("qdisc replace dev ").append(b).append("m root tbf rate ").append(rateBps)
                        .append("bit burst ").append(Math.max(2048, 4 * snapLen)).append(" limit ")
                        .append(bufferBytes).append('\n');
            }
            run(List.of("tc", "-batch", "-"), batch.toString());
        }
        // Datapath flows cached before the change (same MACs and ports as this run's packets) would
        // carry the next run's first packets without the mirror action until OVS revalidates them,
        // which on a loaded machine takes longer than a short run: flush them.
        run(List.of("ovs-appctl", "-t", vswitchdCtl(), "dpctl/del-flows"), null);
        on = List.copyOf(bridges);
        this.rateBps = rateBps;
        baseline = raw();
    }

    /**
     * Copies sent and dropped by the mirror ports since the last {@link #set}.
     *
     * @return {sent, dropped}
     * @throws InterruptedException if interrupted
     */
    public synchronized long[] counters() throws InterruptedException {
        long[] now = raw();
        return new long[]{now[0] - baseline[0], now[1] - baseline[1]};
    }

    /** ovs-vswitchd's control socket, beside the database's (as fabric.sh starts them). */
    private String vswitchdCtl() {
        return java.nio.file.Path.of(db.replaceFirst("^unix:", "")).resolveSibling("ovs-vswitchd.ctl").toString();
    }

    /**
     * Packets the bridges looked up in table 0 and matched no rule (OVS drops them in fail-secure
     * mode), from OpenFlow table statistics: lookups minus matches, summed over the bridges.
     *
     * @return count since the bridges were created (0 for a fabric of no bridges)
     * @throws InterruptedException if interrupted
     */
    public long tableMisses() throws InterruptedException {
        List<String> bridges = all;
        long misses = 0;
        if (bridges.isEmpty()) {
            return 0;
        }
        java.util.regex.Pattern p = java.util.regex.Pattern.compile("lookup=(\\d+), matched=(\\d+)");
        // All bridges at once (one ovs-ofctl each, in parallel): this is read while a run waits.
        StringBuilder script = new StringBuilder();
        for (String b : bridges) {
            script.append("ovs-ofctl -O OpenFlow13 dump-tables ").append(b).append(" & ");
        }
        java.util.regex.Matcher m = p.matcher(run(List.of("bash", "-c", script + "wait"), null));
        int tables = 0;
        while (m.find()) {
            misses += Long.parseLong(m.group(1)) - Long.parseLong(m.group(2));
            tables++;
        }
        if (tables < bridges.size()) {
            throw new IllegalStateException("table statistics of " + tables + " tables for " + bridges.size() + " bridges");
        }
        return misses;
    }

    private long[] raw() throws InterruptedException {
        long sent = 0;
        long dropped = 0;
        if (on.isEmpty()) {
            return new long[]{0, 0};
        }
        // One tc for every qdisc of the namespace; the mirror ports' root qdiscs are picked by name.
        String json = run(List.of("tc", "-s", "-j", "qdisc", "show"), null);
        java.util.Set<String> ports = new java.util.HashSet<>();
        on.forEach(b -> ports.add(b + "m"));
        try {
            for (JsonNode q : mapper.readTree(json)) {
                if (ports.contains(q.path("dev").asText("")) && q.path("root").asBoolean(false)) {
                    sent += q.path("packets").asLong();
                    dropped += q.path("drops").asLong();
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("tc answered no JSON: " + json.substring(0, Math.min(200, json.length())), e);
        }
        return new long[]{sent, dropped};
    }

    private static String run(List<String> cmd, String stdin) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            try (java.io.OutputStream in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(cmd.get(0) + " did not finish");
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd.subList(0, Math.min(6, cmd.size())))
                        + "... failed: " + text.trim());
            }
            return text;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + cmd.get(0) + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "mirrors on " + Arrays.toString(on.toArray()) + " at " + rateBps + " b/s";
    }
}
