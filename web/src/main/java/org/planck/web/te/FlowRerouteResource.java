package org.planck.web.te;

import com.fasterxml.jackson.databind.JsonNode;
import org.onosproject.rest.AbstractWebResource;
import org.planck.api.FlowKey;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteRejectedException;
import org.planck.api.te.TeService;
import org.planck.api.telemetry.TelemetryJson;

import javax.ws.rs.Consumes;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.InputStream;
import java.util.Set;

/**
 * Manual reroute of one flow onto a shadow path.
 */
@Path("v1/flows/reroute")
public class FlowRerouteResource extends AbstractWebResource {

    /**
     * Moves a live flow onto shadow path {@code path} (one ingress-edge rule). The move is
     * logged as a manual reroute and the flow stays put for the damping interval.
     *
     * @param headers request headers
     * @param stream  {"flow": {"src","dst","proto","sport","dport"}, "path": index}
     * @return 200 OK with the reroute; 400 for a malformed body or a path index that is not one of
     *         the flow's paths; 404 for an unknown flow; 409 if Planck's routes are not in force;
     *         415 for a non-JSON body. Nothing changes on an error.
     * @onos.rsModel FlowReroute
     */
    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response reroute(@Context HttpHeaders headers, InputStream stream) {
        FlowKey flow;
        int path;
        try {
            JsonNode json = TeJson.object(mapper(), headers, stream, Set.of("flow", "path"));
            flow = TeJson.flowKey(TeJson.required(json, "flow", ""));
            path = (int) TeJson.integer(json, "path", "", 0, Integer.MAX_VALUE);
        } catch (TeJson.BadRequest e) {
            return e.response(mapper());
        }
        try {
            Reroute r = get(TeService.class).reroute(flow, path);
            return ok(TelemetryJson.reroute(mapper(), r)).build();
        } catch (RerouteRejectedException e) {
            Response.Status status;
            switch (e.reason()) {
                case UNKNOWN_FLOW:
                    status = Response.Status.NOT_FOUND;
                    break;
                case PATH_OUT_OF_RANGE:
                    status = Response.Status.BAD_REQUEST;
                    break;
                default:
                    status = Response.Status.CONFLICT;
                    break;
            }
            return TeJson.error(mapper(), status, e.getMessage());
        }
    }
}
