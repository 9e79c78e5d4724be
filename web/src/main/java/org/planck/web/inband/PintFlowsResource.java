package org.planck.web.inband;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onlab.packet.IpAddress;
import org.onosproject.rest.AbstractWebResource;
import org.planck.api.FlowKey;
import org.planck.api.inband.ConformanceFilter;
import org.planck.api.inband.ConformanceStatus;
import org.planck.api.inband.FlowConformance;
import org.planck.api.inband.PathConformanceService;
import org.planck.api.inband.PintJson;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

/**
 * PINT path conformance: per flow, the path PINT traced against the path the routing plan puts
 * it on (docs/pint.md, docs/rest.md).
 */
@Path("v1/pint")
public class PintFlowsResource extends AbstractWebResource {

    /**
     * Lists flows with PINT state, worst first.
     *
     * @param status only this status (CONFORMING, MOVED_CONFIRMED, MOVE_PENDING, NON_CONFORMING,
     *               UNTRACED, UNPLANNED; case-insensitive)
     * @param host   only flows from or to this IP address
     * @param limit  most flows to list (default all)
     * @return 200 OK with {"flows":[...],"counters":{...}}; 400 for an unknown status, a bad address
     *         or a negative limit
     */
    @GET
    @Path("flows")
    @Produces(MediaType.APPLICATION_JSON)
    public Response flows(@QueryParam("status") String status, @QueryParam("host") String host,
                          @QueryParam("limit") Integer limit) {
        if (limit != null && limit < 0) {
            return error(Response.Status.BAD_REQUEST, "limit: must be >= 0");
        }
        ConformanceStatus only = null;
        if (status != null) {
            try {
                only = ConformanceFilter.status(status);
            } catch (IllegalArgumentException e) {
                return error(Response.Status.BAD_REQUEST, "status: " + e.getMessage());
            }
        }
        IpAddress ip = null;
        if (host != null) {
            try {
                ip = IpAddress.valueOf(host);
            } catch (IllegalArgumentException e) {
                return error(Response.Status.BAD_REQUEST, "host: not an IP address: \"" + host + "\"");
            }
        }
        PathConformanceService service = get(PathConformanceService.class);
        ObjectNode root = mapper().createObjectNode();
        ArrayNode flows = root.putArray("flows");
        for (FlowConformance c : new ConformanceFilter(only, ip).select(service.flows(),
                limit == null ? Integer.MAX_VALUE : limit)) {
            flows.add(PintJson.flow(mapper(), c));
        }
        root.set("counters", PintJson.counters(mapper(), service.counters()));
        return ok(root).build();
    }

    /**
     * One flow's conformance.
     *
     * @param src   source IP address
     * @param dst   destination IP address
     * @param proto IP protocol 0-255
     * @param sport source port 0-65535
     * @param dport destination port 0-65535
     * @return 200 OK with the flow; 400 for a bad 5-tuple; 404 if the flow has no PINT state
     */
    @GET
    @Path("flows/{src}/{dst}/{proto}/{sport}/{dport}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response flow(@PathParam("src") String src, @PathParam("dst") String dst,
                         @PathParam("proto") String proto, @PathParam("sport") String sport,
                         @PathParam("dport") String dport) {
        FlowKey flow;
        try {
            IpAddress s = ip("src", src);
            IpAddress d = ip("dst", dst);
            if (s.version() != d.version()) {
                return error(Response.Status.BAD_REQUEST, "dst: IP version differs from src");
            }
            flow = FlowKey.of(s, d, number("proto", proto, 255), number("sport", sport, 65535),
                    number("dport", dport, 65535));
        } catch (IllegalArgumentException e) {
            return error(Response.Status.BAD_REQUEST, e.getMessage());
        }
        return get(PathConformanceService.class).flow(flow)
                .map(c -> ok(PintJson.flow(mapper(), c)).build())
                .orElseGet(() -> error(Response.Status.NOT_FOUND, "no PINT state for flow " + flow));
    }

    private static IpAddress ip(String field, String text) {
        try {
            return IpAddress.valueOf(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ": not an IP address: \"" + text + "\"", e);
        }
    }

    private static int number(String field, String text, int max) {
        int v;
        try {
            v = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(field + ": not a number: \"" + text + "\"", e);
        }
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(field + ": must be 0-" + max + ", got " + v);
        }
        return v;
    }

    private Response error(Response.Status status, String message) {
        ObjectNode body = mapper().createObjectNode();
        body.put("code", status.getStatusCode());
        body.put("message", message);
        return Response.status(status).entity(body).type(MediaType.APPLICATION_JSON_TYPE).build();
    }
}
