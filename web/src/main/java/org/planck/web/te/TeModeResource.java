package org.planck.web.te;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.rest.AbstractWebResource;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteService;
import org.planck.api.te.TeMode;
import org.planck.api.te.TeService;
import org.planck.api.telemetry.TelemetryJson;

import javax.ws.rs.Consumes;
import javax.ws.rs.GET;
import javax.ws.rs.PUT;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.InputStream;
import java.util.Set;

/**
 * Traffic engineering: its mode and the log of recent reroutes.
 */
@Path("v1/te")
public class TeModeResource extends AbstractWebResource {

    /** Reroutes listed unless asked for more. */
    static final int DEFAULT_LIMIT = 100;

    private ObjectNode modeJson(TeService te) {
        ObjectNode n = mapper().createObjectNode();
        n.put("mode", te.mode().name());
        n.put("requestedMode", te.requestedMode().name());
        n.put("teEnabled", te.teEnabled());
        return n;
    }

    /**
     * The TE mode in force.
     *
     * @return 200 OK with {"mode": in force, "requestedMode", "teEnabled": netcfg allows TE
     *         (false forces STATIC)}
     */
    @GET
    @Path("mode")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getMode() {
        return ok(modeJson(get(TeService.class))).build();
    }

    /**
     * Sets the TE mode: STATIC (hash placement only; removes per-flow placements), POLL (port
     * counters every pollPeriodMs) or PLANCK (collector telemetry). With teEnabled=false in the
     * network config the mode in force stays STATIC until TE is enabled again.
     *
     * @param headers request headers
     * @param stream  {"mode": "STATIC" | "POLL" | "PLANCK"}
     * @return 200 OK with the mode as in GET; 400 with the reason for a malformed body or an
     *         unknown mode (nothing changes); 415 for a non-JSON body
     * @onos.rsModel TeMode
     */
    @PUT
    @Path("mode")
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response putMode(@Context HttpHeaders headers, InputStream stream) {
        TeMode mode;
        try {
            JsonNode json = TeJson.object(mapper(), headers, stream, Set.of("mode"));
            JsonNode m = TeJson.required(json, "mode", "");
            if (!m.isTextual()) {
                throw new TeJson.BadRequest("mode: expected one of STATIC, POLL, PLANCK");
            }
            mode = TeMode.parse(m.asText()).orElseThrow(() -> new TeJson.BadRequest(
                    "mode: expected one of STATIC, POLL, PLANCK, got \"" + m.asText() + "\""));
        } catch (TeJson.BadRequest e) {
            return e.response(mapper());
        }
        TeService te = get(TeService.class);
        te.setMode(mode);
        return ok(modeJson(te)).build();
    }

    /**
     * Recent reroutes, newest first, with their decision latencies.
     *
     * @param limit most reroutes to list (default 100)
     * @return 200 OK with {"total": reroutes since start, "reroutes": [...]}; 400 for a negative limit
     */
    @GET
    @Path("reroutes")
    @Produces(MediaType.APPLICATION_JSON)
    public Response reroutes(@QueryParam("limit") Integer limit) {
        int max = limit == null ? DEFAULT_LIMIT : limit;
        if (max < 0) {
            return TeJson.error(mapper(), Response.Status.BAD_REQUEST, "limit: must be >= 0");
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
