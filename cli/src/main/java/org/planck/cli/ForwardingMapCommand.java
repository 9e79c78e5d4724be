package org.planck.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.planck.api.CollectorForwardingMap;
import org.planck.api.CollectorPushStatus;
import org.planck.api.ForwardingMapCodec;
import org.planck.api.ForwardingMapService;
import org.planck.api.PlanckJson;
import org.planck.api.PortCapacity;
import org.planck.api.SwitchForwarding;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Shows a collector's forwarding map.
 */
@Service
@Command(scope = "onos", name = "planck-forwarding",
        description = "Shows a collector's forwarding map: (switch, destination MAC) -> egress port")
public class ForwardingMapCommand extends AbstractShellCommand {

    @Argument(index = 0, name = "collectorId", description = "Collector id", required = true)
    @Completion(CollectorIdCompleter.class)
    String collectorId = null;

    @Override
    protected void doExecute() {
        ForwardingMapService maps = get(ForwardingMapService.class);
        try {
            if (outputJson()) {
                print("%s", ForwardingMapCodec.encode(map(maps, collectorId), mapper()));
            } else {
                lines(maps, collectorId).forEach(l -> print("%s", l));
            }
        } catch (IllegalArgumentException e) {
            error("%s", e.getMessage());
        }
    }

    private static CollectorForwardingMap map(ForwardingMapService maps, String id) {
        return maps.forwardingMap(id).orElseThrow(() -> new IllegalArgumentException("unknown collector " + id));
    }

    /**
     * The text the command prints.
     *
     * @param maps forwarding map service
     * @param id   collector id
     * @return lines
     * @throws IllegalArgumentException if the collector is unknown
     */
    static List<String> lines(ForwardingMapService maps, String id) {
        CollectorForwardingMap map = map(maps, id);
        List<String> out = new ArrayList<>();
        out.add(String.format("collector %s, generation %d, %d switch(es)", id, map.generation(),
                map.switches().size()));
        maps.pushStatus(id).ifPresent(s -> out.add("  push: " + push(s)));
        for (SwitchForwarding sw : map.switches()) {
            out.add(String.format("  %s rspanVlan=%s mirrorPort=%s ports=%s", sw.deviceId(), sw.rspanVlan(),
                    sw.mirrorPort(), sw.ports().stream().map(ForwardingMapCommand::port)
                            .collect(Collectors.joining(","))));
            sw.entries().forEach((mac, port) -> out.add(String.format("    %s -> %s", PlanckJson.mac(mac), port)));
        }
        return out;
    }

    private static String port(PortCapacity p) {
        return p.port() + "@" + (p.capacityBps() / 1_000_000) + "Mbps";
    }

    private static String push(CollectorPushStatus s) {
        return String.format("delivered=%d (generation %d) failedAttempts=%d rejected=%d superseded=%d abandoned=%d%s",
                s.delivered(), s.deliveredGeneration(), s.failedAttempts(), s.rejected(), s.superseded(),
                s.abandoned(), s.lastError().isEmpty() ? "" : " lastError=" + s.lastError());
    }
}
