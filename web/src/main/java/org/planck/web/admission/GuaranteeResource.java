package org.planck.web.admission;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.rest.AbstractWebResource;
import org.planck.api.admission.AdmissionJson;
import org.planck.api.admission.AdmissionRejectedException;
import org.planck.api.admission.AdmissionService;
import org.planck.api.admission.Guarantee;
import org.planck.api.admission.GuaranteeRequest;

import javax.ws.rs.Consumes;
import javax.ws.rs.DELETE;
import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;

/**
 * Guaranteed-latency flows (Loko admission control).
 */
@Path("v1/guarantees")
public class GuaranteeResource extends AbstractWebResource {

    /**
     * Lists the admitted guarantees with their bounds now, and the decision counters.
     *
     * @return 200 OK with {"guarantees": [...], "counters": {...}}
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response list() {
        AdmissionService adm = get(AdmissionService.class);
        Map<String, Long> bounds = adm.currentBounds();
        ObjectNode root = mapper().createObjectNode();
        ArrayNode list = root.putArray("guarantees");
        for (Guarantee g : adm.guarantees()) {
            list.add(AdmissionJson.guarantee(mapper(), g, bounds.get(g.id())));
        }
        root.set("counters", AdmissionJson.counters(mapper(), adm.counters()));
        return ok(root).build();
    }

    /**
     * One guarantee.
     *
     * @param id guarantee id
     * @return 200 OK with it; 404 if unknown
     */
    @GET
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response one(@PathParam("id") String id) {
        AdmissionService adm = get(AdmissionService.class);
        Optional<Guarantee> g = adm.guarantee(id);
        if (g.isEmpty()) {
            return error(Response.Status.NOT_FOUND, "unknown guarantee " + id);
        }
        return ok(AdmissionJson.guarantee(mapper(), g.get(), adm.currentBounds().get(id))).build();
    }

    /**
     * Asks for a guarantee: the flow is admitted on a shadow path where it and every admitted
     * flow meet their deadlines, pinned there and metered at its ingress.
     *
     * @param headers request headers
     * @param stream  {"flow": 5-tuple | "hosts": {"src","dst"}, "rateBytesPerSec", "burstBytes",
     *                "maxPacketBytes", "minPacketBytes"?, "deadlineMicros"}
     * @return 201 Created with the guarantee; 400 for a bad request (malformed, negative rate,
     *         unknown host, deadline below the path's fixed latency); 409 if no path has room
     *         (the message names the hop and the bound); 415 for a non-JSON body; 503 if routes
     *         are not in force. Nothing changes on an error.
     * @onos.rsModel GuaranteeRequest
     */
    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response add(@Context HttpHeaders headers, InputStream stream) {
        MediaType type = headers.getMediaType();
        if (type != null && !type.isCompatible(MediaType.APPLICATION_JSON_TYPE)) {
            return error(Response.Status.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json, got "
                    + type);
        }
        GuaranteeRequest request;
        try {
            request = GuaranteeRequests.parse(mapper(), stream);
        } catch (GuaranteeRequests.BadRequest e) {
            return error(Response.Status.BAD_REQUEST, e.getMessage());
        }
        AdmissionService adm = get(AdmissionService.class);
        try {
            Guarantee g = adm.admit(request);
            return Response.status(Response.Status.CREATED)
                    .entity(AdmissionJson.guarantee(mapper(), g, g.boundNanos()))
                    .type(MediaType.APPLICATION_JSON_TYPE).build();
        } catch (AdmissionRejectedException e) {
            Response.Status status;
            switch (e.reason()) {
                case BAD_REQUEST:
                    status = Response.Status.BAD_REQUEST;
                    break;
                case NO_CAPACITY:
                    status = Response.Status.CONFLICT;
                    break;
                default:
                    status = Response.Status.SERVICE_UNAVAILABLE;
                    break;
            }
            return error(status, e.getMessage());
        }
    }

    /**
     * Withdraws a guarantee (its pin and meter go).
     *
     * @param id guarantee id
     * @return 204 No Content; 404 if unknown
     */
    @DELETE
    @Path("{id}")
    public Response remove(@PathParam("id") String id) {
        if (!get(AdmissionService.class).remove(id)) {
            return error(Response.Status.NOT_FOUND, "unknown guarantee " + id);
        }
        return Response.noContent().build();
    }

    private Response error(Response.Status status, String message) {
        ObjectNode body = mapper().createObjectNode();
        body.put("code", status.getStatusCode());
        body.put("message", message);
        return Response.status(status).entity(body).type(MediaType.APPLICATION_JSON_TYPE).build();
    }
}
