package org.planck.cli.admission;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.completers.StringsCompleter;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.cli.AbstractShellCommand;
import org.planck.api.FlowKey;
import org.planck.api.PlanckJson;
import org.planck.api.admission.AdmissionCounters;
import org.planck.api.admission.AdmissionRejectedException;
import org.planck.api.admission.AdmissionService;
import org.planck.api.admission.Guarantee;
import org.planck.api.admission.GuaranteeRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Guaranteed-latency flows: add one, list them with their bounds, remove one.
 */
@Service
@Command(scope = "onos", name = "planck-guarantee",
        description = "Admits (add), lists (list) or withdraws (remove) guaranteed-latency flows")
public class GuaranteeCommand extends AbstractShellCommand {

    @Argument(index = 0, name = "action", description = "add, list or remove", required = true)
    @Completion(value = StringsCompleter.class, values = {"add", "list", "remove"})
    String action = null;

    @Argument(index = 1, name = "src", description = "add: source IP (5-tuple) or MAC (host pair); "
            + "remove: guarantee id")
    String src = null;

    @Argument(index = 2, name = "dst", description = "add: destination IP or MAC")
    String dst = null;

    @Option(name = "--proto", description = "IP protocol (5-tuple)")
    String proto = null;

    @Option(name = "--sport", description = "Source port (5-tuple)")
    String sport = null;

    @Option(name = "--dport", description = "Destination port (5-tuple)")
    String dport = null;

    @Option(name = "--rate", description = "Token rate, bytes/s")
    String rate = null;

    @Option(name = "--burst", description = "Bucket depth, bytes")
    String burst = null;

    @Option(name = "--max-packet", description = "Largest packet, bytes (default 1500)")
    String maxPacket = "1500";

    @Option(name = "--min-packet", description = "Smallest packet, bytes (default 64)")
    String minPacket = "64";

    @Option(name = "--deadline-us", description = "End-to-end deadline, µs")
    String deadline = null;

    @Override
    protected void doExecute() {
        AdmissionService adm = get(AdmissionService.class);
        try {
            for (String line : run(adm, action, src, dst, proto, sport, dport, rate, burst, maxPacket, minPacket,
                    deadline)) {
                print("%s", line);
            }
        } catch (IllegalArgumentException | AdmissionRejectedException e) {
            error("%s", e.getMessage());
        }
    }

    /**
     * Runs one action.
     *
     * @return the lines to print
     * @throws IllegalArgumentException    malformed arguments (nothing changes)
     * @throws AdmissionRejectedException  not admitted (nothing changes)
     */
    static List<String> run(AdmissionService adm, String action, String src, String dst, String proto,
                            String sport, String dport, String rate, String burst, String maxPacket,
                            String minPacket, String deadline) throws AdmissionRejectedException {
        switch (action == null ? "" : action) {
            case "list":
                return list(adm);
            case "remove":
                if (src == null) {
                    throw new IllegalArgumentException("remove: give the guarantee id");
                }
                if (!adm.remove(src)) {
                    throw new IllegalArgumentException("unknown guarantee " + src);
                }
                return List.of("removed " + src);
            case "add":
                Guarantee g = adm.admit(request(src, dst, proto, sport, dport, rate, burst, maxPacket, minPacket,
                        deadline));
                return List.of(line(g, g.boundNanos()));
            default:
                throw new IllegalArgumentException("unknown action " + action + ": expected add, list or remove");
        }
    }

    static GuaranteeRequest request(String src, String dst, String proto, String sport, String dport, String rate,
                                    String burst, String maxPacket, String minPacket, String deadline) {
        if (src == null || dst == null) {
            throw new IllegalArgumentException("add: give source and destination (IPs with --proto/--sport/--dport,"
                    + " or host MACs)");
        }
        long r = number("--rate", rate, 1, Long.MAX_VALUE / 8);
        long b = number("--burst", burst, 1, Long.MAX_VALUE / 8);
        int max = (int) number("--max-packet", maxPacket, 1, 65535);
        int min = (int) number("--min-packet", minPacket, 1, 65535);
        long d = number("--deadline-us", deadline, 1, 3_600_000_000L) * 1000;
        if (src.contains(":") && src.length() == 17) {
            return GuaranteeRequest.forHostPair(mac("src", src), mac("dst", dst), r, b, min, max, d);
        }
        IpAddress s = ip("src", src);
        IpAddress t = ip("dst", dst);
        if (s.version() != t.version()) {
            throw new IllegalArgumentException("dst: IP version differs from src");
        }
        FlowKey flow = FlowKey.of(s, t, (int) number("--proto", proto, 0, 255),
                (int) number("--sport", sport, 0, 65535), (int) number("--dport", dport, 0, 65535));
        return GuaranteeRequest.forFlow(flow, r, b, min, max, d);
    }

    private static List<String> list(AdmissionService adm) {
        Map<String, Long> bounds = adm.currentBounds();
        List<String> out = new ArrayList<>();
        for (Guarantee g : adm.guarantees()) {
            out.add(line(g, bounds.get(g.id())));
        }
        AdmissionCounters c = adm.counters();
        out.add(String.format("%d guarantee(s); admitted=%d rejected(bad request)=%d rejected(no capacity)=%d "
                        + "TE moves vetoed=%d slowest decision=%d us", out.size(), c.admitted(),
                c.rejectedBadRequest(), c.rejectedNoCapacity(), c.movesVetoed(), c.maxDecisionMicros()));
        return out;
    }

    private static String line(Guarantee g, Long boundNs) {
        String what = g.request().flow().map(Object::toString)
                .orElse(PlanckJson.mac(g.src()) + "->" + PlanckJson.mac(g.dst()));
        return String.format("%s  %s  rate=%dB/s burst=%dB deadline=%.1fus bound=%s path=%d policing=%s", g.id(),
                what, g.request().rateBytesPerSec(), g.request().burstBytes(), g.request().deadlineNanos() / 1e3,
                boundNs == null ? "?" : String.format("%.1fus", boundNs / 1e3), g.pathIndex(), g.policing());
    }

    private static long number(String name, String text, long min, long max) {
        if (text == null) {
            throw new IllegalArgumentException(name + ": missing");
        }
        long v;
        try {
            v = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": not a number: " + text);
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + ": expected " + min + ".." + max + ", got " + v);
        }
        return v;
    }

    private static IpAddress ip(String name, String text) {
        try {
            return IpAddress.valueOf(text.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": not an IP address or MAC: " + text);
        }
    }

    private static MacAddress mac(String name, String text) {
        try {
            return MacAddress.valueOf(text.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": not a MAC address: " + text);
        }
    }
}
