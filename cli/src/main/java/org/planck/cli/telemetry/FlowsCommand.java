package org.planck.cli.telemetry;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.google.common.collect.ImmutableSet;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onlab.packet.IpAddress;
import org.onosproject.cli.AbstractShellCommand;
import org.planck.api.inband.ConformanceStatus;
import org.planck.api.inband.FlowConformance;
import org.planck.api.inband.PathConformanceService;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Host;
import org.onosproject.net.HostId;
import org.onosproject.net.host.HostService;
import org.planck.api.telemetry.FlowFilter;
import org.planck.api.telemetry.FlowRecord;
import org.planck.api.telemetry.FlowStateService;
import org.planck.api.telemetry.PortLoadService;
import org.planck.api.telemetry.TelemetryJson;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Lists live flows from collector telemetry, largest rate first.
 */
@Service
@Command(scope = "onos", name = "planck-flows",
        description = "Lists live flows reported by Planck collectors, largest rate first")
public class FlowsCommand extends AbstractShellCommand {

    @Option(name = "--host", description = "Only flows from or to this host: IP address or host id (MAC/VLAN)")
    @Completion(FlowHostCompleter.class)
    String host = null;

    @Option(name = "--port", description = "Only flows placed on this port, e.g. of:0000000000000001/3")
    @Completion(TelemetryPortCompleter.class)
    String port = null;

    @Option(name = "--congested", description = "Only flows placed on congested ports")
    boolean congested = false;

    @Option(name = "-n", aliases = "--limit", description = "Most flows to list (default 50)")
    int limit = 50;

    @Override
    protected void doExecute() {
        if (limit < 0) {
            error("--limit must be >= 0");
            return;
        }
        FlowStateService flowState = get(FlowStateService.class);
        PortLoadService portLoads = get(PortLoadService.class);
        Collection<FlowRecord> records;
        if (port != null) {
            ConnectPoint cp;
            try {
                cp = ConnectPoint.deviceConnectPoint(port);
            } catch (IllegalArgumentException e) {
                error("--port: expected device/port, e.g. of:0000000000000001/3, got \"%s\"", port);
                return;
            }
            records = flowState.flowsOn(cp);
        } else {
            records = flowState.flows();
        }
        Set<IpAddress> hostIps = null;
        if (host != null) {
            hostIps = resolveHost(host);
            if (hostIps == null) {
                return;
            }
        }
        Set<ConnectPoint> congestedPorts = portLoads.congestedPorts();
        List<FlowRecord> selected = new FlowFilter(hostIps, congested ? Boolean.TRUE : null)
                .select(records, congestedPorts);
        List<FlowRecord> shown = selected.subList(0, Math.min(limit, selected.size()));
        if (outputJson()) {
            ArrayNode array = mapper().createArrayNode();
            shown.forEach(r -> array.add(TelemetryJson.flowRecord(mapper(), r, congestedPorts.contains(r.port()))));
            print("%s", array);
            return;
        }
        PathConformanceService pint = pathConformance();
        for (FlowRecord r : shown) {
            Optional<FlowConformance> c = pint == null ? Optional.empty() : pint.flow(r.flow());
            print("%s", line(r, congestedPorts.contains(r.port()), c.map(FlowConformance::status).orElse(null)));
        }
        print("%d of %d flow records", shown.size(), selected.size());
    }

    /**
     * One flow record's line.
     *
     * @param r         the record
     * @param congested whether its port is congested
     * @param pint      the flow's PINT path conformance, null if it has none
     * @return the line
     */
    static String line(FlowRecord r, boolean congested, ConformanceStatus pint) {
        return String.format("%s switch=%s port=%s rate=%.3f Mb/s dstMac=%s estimator=%s collector=%s%s%s",
                r.flow(), r.port().deviceId(), r.port().port(), r.bytesPerSec() * 8 / 1e6, r.dstMac(),
                r.estimator(), r.collector(), congested ? " CONGESTED" : "", pint == null ? "" : " pint=" + pint);
    }

    // Path conformance is optional for this listing: without it the lines carry no pint= field.
    private PathConformanceService pathConformance() {
        try {
            return get(PathConformanceService.class);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private Set<IpAddress> resolveHost(String text) {
        if (text.contains("/")) {
            HostId id;
            try {
                id = HostId.hostId(text);
            } catch (IllegalArgumentException e) {
                error("--host: not an IP address or host id: \"%s\"", text);
                return null;
            }
            Host h = get(HostService.class).getHost(id);
            if (h == null) {
                error("--host: unknown host %s", id);
                return null;
            }
            return h.ipAddresses();
        }
        try {
            return ImmutableSet.of(IpAddress.valueOf(text));
        } catch (IllegalArgumentException e) {
            error("--host: not an IP address or host id: \"%s\"", text);
            return null;
        }
    }
}
