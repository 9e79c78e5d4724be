package org.planck.cli.telemetry;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.planck.api.telemetry.PortLoad;
import org.planck.api.telemetry.PortLoadService;
import org.planck.api.telemetry.TelemetryJson;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Lists port loads from collector telemetry, most utilised first.
 */
@Service
@Command(scope = "onos", name = "planck-ports",
        description = "Lists port loads (sum of the rates of the flows on each port), most utilised first")
public class PortsCommand extends AbstractShellCommand {

    @Option(name = "--congested", description = "Only congested ports")
    boolean congested = false;

    @Option(name = "-n", aliases = "--limit", description = "Most ports to list (default all)")
    int limit = Integer.MAX_VALUE;

    @Override
    protected void doExecute() {
        if (limit < 0) {
            error("--limit must be >= 0");
            return;
        }
        List<PortLoad> loads = new ArrayList<>();
        for (PortLoad l : get(PortLoadService.class).loads()) {
            if (!congested || l.congested()) {
                loads.add(l);
            }
        }
        loads.sort(Comparator.comparingDouble(PortLoad::utilization).reversed()
                .thenComparing(Comparator.comparingLong(PortLoad::loadBps).reversed()));
        List<PortLoad> shown = loads.subList(0, Math.min(limit, loads.size()));
        if (outputJson()) {
            ArrayNode array = mapper().createArrayNode();
            shown.forEach(l -> array.add(TelemetryJson.portLoad(mapper(), l)));
            print("%s", array);
            return;
        }
        for (PortLoad l : shown) {
            print("%s utilization=%.1f%% load=%.3f Mb/s capacity=%.0f Mb/s flows=%d%s", l.port(),
                    l.utilization() * 100, l.loadBps() / 1e6, l.capacityBps() / 1e6, l.flowCount(),
                    l.congested() ? " CONGESTED" : "");
        }
    }
}
