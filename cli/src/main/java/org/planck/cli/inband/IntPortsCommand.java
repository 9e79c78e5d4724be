package org.planck.cli.inband;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.planck.api.inband.IntCounters;
import org.planck.api.inband.IntJson;
import org.planck.api.inband.IntPortService;
import org.planck.api.inband.IntPortState;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Lists the controller's INT port state, largest queue occupancy first.
 */
@Service
@Command(scope = "onos", name = "planck-int-ports",
        description = "Lists INT port state (queue occupancy, hop latency, egress utilisation), largest queue first")
public class IntPortsCommand extends AbstractShellCommand {

    @Option(name = "--congested", description = "Only ports whose queues count as congested")
    boolean congested = false;

    @Option(name = "-n", aliases = "--limit", description = "Most ports to list (default all)")
    int limit = Integer.MAX_VALUE;

    @Override
    protected void doExecute() {
        if (limit < 0) {
            error("--limit must be >= 0");
            return;
        }
        IntPortService service = get(IntPortService.class);
        if (outputJson()) {
            ArrayNode array = mapper().createArrayNode();
            shown(service, congested, limit).forEach(s -> array.add(IntJson.portState(mapper(), s)));
            print("%s", array);
            return;
        }
        lines(service, congested, limit).forEach(l -> print("%s", l));
    }

    /** The ports listed, largest queue occupancy first. */
    static List<IntPortState> shown(IntPortService service, boolean onlyCongested, int limit) {
        List<IntPortState> states = new ArrayList<>();
        for (IntPortState s : service.ports()) {
            if (!onlyCongested || s.queueCongested()) {
                states.add(s);
            }
        }
        states.sort(Comparator.comparingLong(IntPortState::maxQueueOccupancy).reversed()
                .thenComparing(s -> s.port().toString()));
        return states.subList(0, Math.min(limit, states.size()));
    }

    /**
     * The text listing: one line per port, then the counters.
     *
     * @param service       INT port state
     * @param onlyCongested only ports whose queues count as congested
     * @param limit         most ports, >= 0
     * @return lines
     */
    static List<String> lines(IntPortService service, boolean onlyCongested, int limit) {
        List<String> out = new ArrayList<>();
        for (IntPortState s : shown(service, onlyCongested, limit)) {
            StringBuilder queues = new StringBuilder();
            for (Map.Entry<Integer, Long> q : s.queues().entrySet()) {
                queues.append(queues.length() == 0 ? "" : ",").append(q.getKey()).append(':').append(q.getValue());
            }
            out.add(String.format("%s queues=[%s] hopLatency=%s utilization=%s cause=%s collector=%s%s", s.port(),
                    queues, known(s.hopLatencyNs(), " ns"), known(s.linkUtilization(), ""), s.lastCause(),
                    s.collector(), s.queueCongested() ? " QUEUE-CONGESTED" : ""));
        }
        IntCounters c = service.counters();
        out.add(String.format("signals applied=%d stale=%d dropped=%d; ports expired=%d; marks set=%d lifted=%d",
                c.applied(), c.stale(), c.dropped(), c.expired(), c.congested(), c.cleared()));
        return out;
    }

    private static String known(long v, String unit) {
        return v == IntPortState.UNKNOWN ? "-" : v + unit;
    }
}
