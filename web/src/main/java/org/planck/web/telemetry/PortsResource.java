package org.planck.web.telemetry;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.rest.AbstractWebResource;
import org.planck.api.telemetry.PortLoad;
import org.planck.api.telemetry.PortLoadService;
import org.planck.api.telemetry.TelemetryJson;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Port loads from the telemetry: sum of the rates of the flows placed on each port.
 */
@Path("v1/ports")
public class PortsResource extends AbstractWebResource {

    /**
     * Lists ports carrying flows or congested, most utilised first.
     *
     * @param congested if true only congested ports, if false only uncongested ones
     * @param limit     most ports to list (default all)
     * @return 200 OK with {"ports":[...]}; 400 for a negative limit
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response ports(@QueryParam("congested") Boolean congested, @QueryParam("limit") Integer limit) {
        if (limit != null && limit < 0) {
            return TelemetryErrors.error(mapper(), Response.Status.BAD_REQUEST, "limit: must be >= 0");
        }
        List<PortLoad> loads = new ArrayList<>();
        for (PortLoad l : get(PortLoadService.class).loads()) {
            if (congested == null || congested == l.congested()) {
                loads.add(l);
            }
        }
        loads.sort(Comparator.comparingDouble(PortLoad::utilization).reversed()
                .thenComparing(Comparator.comparingLong(PortLoad::loadBps).reversed()));
        int max = limit == null ? loads.size() : Math.min(limit, loads.size());
        ObjectNode root = mapper().createObjectNode();
        ArrayNode ports = root.putArray("ports");
        for (PortLoad l : loads.subList(0, max)) {
            ports.add(TelemetryJson.portLoad(mapper(), l));
        }
        return ok(root).build();
    }
}
