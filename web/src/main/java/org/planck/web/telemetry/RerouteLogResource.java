package org.planck.web.telemetry;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.rest.AbstractWebResource;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteService;
import org.planck.api.telemetry.TelemetryJson;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

/**
 * The log of recent reroutes, with their decision latencies.
 */
@Path("v1/reroutes")
public class RerouteLogResource extends AbstractWebResource {

    /** Reroutes listed unless asked for more (the log keeps 1024). */
    static final int DEFAULT_LIMIT = 100;

    /**
     * Lists recent reroutes, newest first.
     *
     * @param limit most reroutes to list (default 100)
     * @return 200 OK with {"total": reroutes since start, "reroutes": [...]}; 400 for a negative limit
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response reroutes(@QueryParam("limit") Integer limit) {
        int max = limit == null ? DEFAULT_LIMIT : limit;
        if (max < 0) {
            return TelemetryErrors.error(mapper(), Response.Status.BAD_REQUEST, "limit: must be >= 0");
        }
        RerouteService reroutes = get(RerouteService.class);
        ObjectNode root = mapper().createObjectNode();
        root.put("total", reroutes.rerouteCount());
        ArrayNode list = root.putArray("reroutes");
        for (Reroute r : reroutes.recent(max)) {
            list.add(TelemetryJson.reroute(mapper(), r));
        }
        return ok(root).build();
    }
}
