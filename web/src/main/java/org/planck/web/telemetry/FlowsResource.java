package org.planck.web.telemetry;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onlab.packet.IpAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Host;
import org.onosproject.net.HostId;
import org.onosproject.net.host.HostService;
import org.onosproject.rest.AbstractWebResource;
import org.planck.api.telemetry.FlowFilter;
import org.planck.api.telemetry.FlowRecord;
import org.planck.api.telemetry.FlowStateService;
import org.planck.api.telemetry.PortLoadService;
import org.planck.api.telemetry.TelemetryJson;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Live flows as the telemetry reports them.
 */
@Path("v1/flows")
public class FlowsResource extends AbstractWebResource {

    /** Most flow records one answer lists unless asked for more. */
    static final int DEFAULT_LIMIT = 1000;

    /**
     * Lists live flow records, largest rate first.
     *
     * @param host      only flows from or to this host: an IP address, or an ONOS host id (MAC/VLAN)
     * @param port      only flows placed on this port, e.g. of:0000000000000001/3
     * @param congested if true, only flows placed on congested ports
     * @param limit     most records to list (default 1000)
     * @return 200 OK with {"total":n,"flows":[...]}; 400 for a malformed filter; 404 for an unknown host id
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response flows(@QueryParam("host") String host, @QueryParam("port") String port,
                          @QueryParam("congested") Boolean congested, @QueryParam("limit") Integer limit) {
        FlowStateService flowState = get(FlowStateService.class);
        PortLoadService portLoads = get(PortLoadService.class);
        int max = limit == null ? DEFAULT_LIMIT : limit;
        if (max < 0) {
            return TelemetryErrors.error(mapper(), Response.Status.BAD_REQUEST, "limit: must be >= 0");
        }
        Collection<FlowRecord> records;
        if (port != null) {
            ConnectPoint cp;
            try {
                cp = ConnectPoint.deviceConnectPoint(port);
            } catch (IllegalArgumentException e) {
                return TelemetryErrors.error(mapper(), Response.Status.BAD_REQUEST,
                        "port: expected device/port, e.g. of:0000000000000001/3, got \"" + port + "\"");
            }
            records = flowState.flowsOn(cp);
        } else {
            records = flowState.flows();
        }
        Set<IpAddress> hostIps = null;
        if (host != null) {
            if (host.contains("/")) {
                HostId id;
                try {
                    id = HostId.hostId(host);
                } catch (IllegalArgumentException e) {
                    return TelemetryErrors.error(mapper(), Response.Status.BAD_REQUEST,
                            "host: not an IP address or host id: \"" + host + "\"");
                }
                Host h = get(HostService.class).getHost(id);
                if (h == null) {
                    return TelemetryErrors.error(mapper(), Response.Status.NOT_FOUND, "host: unknown host " + id);
                }
                hostIps = h.ipAddresses();
            } else {
                try {
                    hostIps = Set.of(IpAddress.valueOf(host));
                } catch (IllegalArgumentException e) {
                    return TelemetryErrors.error(mapper(), Response.Status.BAD_REQUEST,
                            "host: not an IP address or host id: \"" + host + "\"");
                }
            }
        }
        Set<ConnectPoint> congestedPorts = portLoads.congestedPorts();
        List<FlowRecord> selected = new FlowFilter(hostIps, congested).select(records, congestedPorts);
        ObjectNode root = mapper().createObjectNode();
        root.put("total", selected.size());
        ArrayNode flows = root.putArray("flows");
        for (FlowRecord r : selected.subList(0, Math.min(max, selected.size()))) {
            flows.add(TelemetryJson.flowRecord(mapper(), r, congestedPorts.contains(r.port())));
        }
        return ok(root).build();
    }
}
