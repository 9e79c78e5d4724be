package org.planck.cli.telemetry;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteService;
import org.planck.api.telemetry.TelemetryJson;

import java.time.Instant;
import java.util.List;

/**
 * Lists recent reroutes with their decision latencies.
 */
@Service
@Command(scope = "onos", name = "planck-reroutes",
        description = "Lists recent flow reroutes, newest first, with decision latencies")
public class ReroutesCommand extends AbstractShellCommand {

    @Option(name = "-n", aliases = "--limit", description = "Most reroutes to list (default 20)")
    int limit = 20;

    @Override
    protected void doExecute() {
        if (limit < 0) {
            error("--limit must be >= 0");
            return;
        }
        RerouteService reroutes = get(RerouteService.class);
        List<Reroute> recent = reroutes.recent(limit);
        if (outputJson()) {
            ArrayNode array = mapper().createArrayNode();
            recent.forEach(r -> array.add(TelemetryJson.reroute(mapper(), r)));
            print("%s", array);
            return;
        }
        for (Reroute r : recent) {
            print("%s %s path %d -> %d (%s) off %s, decided in %d us", Instant.ofEpochMilli(r.timeMillis()),
                    r.flow(), r.fromPath(), r.toPath(), r.shadowMac(),
                    r.congestedPort().map(Object::toString).orElse("- (manual)"), r.decisionLatencyMicros());
        }
        print("%d shown, %d reroutes since start", recent.size(), reroutes.rerouteCount());
    }
}
