package org.planck.cli.inband;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onlab.packet.IpAddress;
import org.onosproject.cli.AbstractShellCommand;
import org.planck.api.inband.ConformanceFilter;
import org.planck.api.inband.ConformanceStatus;
import org.planck.api.inband.FlowConformance;
import org.planck.api.inband.PathConformanceService;
import org.planck.api.inband.PintCounters;
import org.planck.api.inband.PintJson;

import java.util.ArrayList;
import java.util.List;

/**
 * Lists PINT path conformance: per flow, the traced path against the planned one, worst first.
 */
@Service
@Command(scope = "onos", name = "planck-pint",
        description = "Lists PINT path conformance per flow (traced vs planned path, moves and their confirmation),"
                + " non-conforming first")
public class PintFlowsCommand extends AbstractShellCommand {

    @Option(name = "-s", aliases = "--status",
            description = "Only this status: CONFORMING, MOVED_CONFIRMED, MOVE_PENDING, NON_CONFORMING, UNTRACED,"
                    + " UNPLANNED")
    String status = null;

    @Option(name = "--host", description = "Only flows from or to this IP address")
    String host = null;

    @Option(name = "-n", aliases = "--limit", description = "Most flows to list (default all)")
    int limit = Integer.MAX_VALUE;

    @Override
    protected void doExecute() {
        ConformanceFilter filter;
        try {
            filter = filter(status, host, limit);
        } catch (IllegalArgumentException e) {
            error("%s", e.getMessage());
            return;
        }
        PathConformanceService service = get(PathConformanceService.class);
        if (outputJson()) {
            ArrayNode array = mapper().createArrayNode();
            filter.select(service.flows(), limit).forEach(c -> array.add(PintJson.flow(mapper(), c)));
            print("%s", array);
            return;
        }
        lines(service, filter, limit).forEach(l -> print("%s", l));
    }

    /**
     * Validates the options.
     *
     * @param status status name or null
     * @param host   IP address or null
     * @param limit  most flows
     * @return the filter
     * @throws IllegalArgumentException with the reason
     */
    static ConformanceFilter filter(String status, String host, int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("--limit must be >= 0");
        }
        ConformanceStatus s = status == null ? null : ConformanceFilter.status(status);
        IpAddress ip = null;
        if (host != null) {
            try {
                ip = IpAddress.valueOf(host);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--host: not an IP address: \"" + host + "\"", e);
            }
        }
        return new ConformanceFilter(s, ip);
    }

    /**
     * The text listing: one line per flow, then the counters.
     *
     * @param service path conformance
     * @param filter  selection
     * @param limit   most flows, >= 0
     * @return lines
     */
    static List<String> lines(PathConformanceService service, ConformanceFilter filter, int limit) {
        List<String> out = new ArrayList<>();
        for (FlowConformance c : filter.select(service.flows(), limit)) {
            StringBuilder line = new StringBuilder();
            line.append(c.flow()).append(' ').append(c.status())
                    .append(" traced=").append(c.tracedPath())
                    .append(" planned=").append(c.plannedIndex() == FlowConformance.NONE ? "-" : "#" + c.plannedIndex())
                    .append(c.plannedPath());
            if (c.tracePackets() != FlowConformance.NONE) {
                line.append(" tracePackets=").append(c.tracePackets());
            }
            if (c.moves() > 0) {
                line.append(" moved=#").append(c.movedFrom()).append("->#").append(c.movedTo())
                        .append(" moves=").append(c.moves());
            }
            if (c.confirmationMillis() != FlowConformance.NONE) {
                line.append(" confirmedAfter=").append(c.confirmationMillis()).append(" ms");
            }
            out.add(line.toString());
        }
        PintCounters k = service.counters();
        out.add(String.format("flows=%d; paths=%d latencies=%d refused=%d expired=%d; non-conforming=%d"
                        + " confirmed moves=%d", k.flows(), k.paths(), k.latencies(), k.refused(), k.expired(),
                k.nonConforming(), k.confirmed()));
        return out;
    }
}
