package org.planck.cli.te;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onlab.packet.IpAddress;
import org.onosproject.cli.AbstractShellCommand;
import org.planck.api.FlowKey;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteRejectedException;
import org.planck.api.te.TeService;

/**
 * Moves one flow onto a shadow path by hand.
 */
@Service
@Command(scope = "onos", name = "planck-reroute",
        description = "Moves a live flow (5-tuple) onto shadow path i (one ingress-edge rule)")
public class RerouteCommand extends AbstractShellCommand {

    @Argument(index = 0, name = "src", description = "Source IP", required = true)
    String src = null;

    @Argument(index = 1, name = "dst", description = "Destination IP", required = true)
    String dst = null;

    @Argument(index = 2, name = "proto", description = "IP protocol number (6 TCP, 17 UDP)", required = true)
    String proto = null;

    @Argument(index = 3, name = "sport", description = "Source port", required = true)
    String sport = null;

    @Argument(index = 4, name = "dport", description = "Destination port", required = true)
    String dport = null;

    @Argument(index = 5, name = "path", description = "Shadow path index toward the destination", required = true)
    String path = null;

    @Override
    protected void doExecute() {
        try {
            print("%s", run(get(TeService.class), src, dst, proto, sport, dport, path));
        } catch (IllegalArgumentException | RerouteRejectedException e) {
            error("%s", e.getMessage());
        }
    }

    private static int number(String name, String text, int min, int max) {
        int v;
        try {
            v = Integer.parseInt(text.trim());
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
            throw new IllegalArgumentException(name + ": not an IP address: " + text);
        }
    }

    /**
     * Parses the arguments and moves the flow.
     *
     * @return a line describing the reroute
     * @throws IllegalArgumentException  malformed arguments (nothing changes)
     * @throws RerouteRejectedException  unknown flow or path out of range (nothing changes)
     */
    static String run(TeService te, String src, String dst, String proto, String sport, String dport,
                      String path) throws RerouteRejectedException {
        IpAddress s = ip("src", src);
        IpAddress d = ip("dst", dst);
        if (s.version() != d.version()) {
            throw new IllegalArgumentException("dst: IP version differs from src");
        }
        FlowKey flow = FlowKey.of(s, d, number("proto", proto, 0, 255), number("sport", sport, 0, 65535),
                number("dport", dport, 0, 65535));
        int index = number("path", path, 0, Integer.MAX_VALUE);
        Reroute r = te.reroute(flow, index);
        return String.format("%s moved from path %d to path %d (shadow MAC %s) in %d us", r.flow(), r.fromPath(),
                r.toPath(), r.shadowMac(), r.decisionLatencyMicros());
    }
}
