package org.planck.web.inband;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.rest.AbstractWebResource;
import org.planck.api.inband.IntJson;
import org.planck.api.inband.IntPortService;
import org.planck.api.inband.IntPortState;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The controller's INT port state: latest queue occupancy, hop latency and egress utilisation
 * per switch egress port, from collectors' INT_PORT signals.
 */
@Path("v1/int")
public class IntPortsResource extends AbstractWebResource {

    /**
     * Lists ports with INT state, largest queue occupancy first.
     *
     * @param congested if true only ports whose queues count as congested, if false only others
     * @param device    only this switch (device id)
     * @param limit     most ports to list (default all)
     * @return 200 OK with {"ports":[...],"counters":{...}}; 400 for a negative limit or bad device id
     */
    @GET
    @Path("ports")
    @Produces(MediaType.APPLICATION_JSON)
    public Response ports(@QueryParam("congested") Boolean congested, @QueryParam("device") String device,
                          @QueryParam("limit") Integer limit) {
        if (limit != null && limit < 0) {
            return error(Response.Status.BAD_REQUEST, "limit: must be >= 0");
        }
        DeviceId only = null;
        if (device != null) {
            try {
                only = deviceId(device);
            } catch (IllegalArgumentException e) {
                return error(Response.Status.BAD_REQUEST, "device: " + e.getMessage());
            }
        }
        IntPortService service = get(IntPortService.class);
        List<IntPortState> states = new ArrayList<>();
        for (IntPortState s : service.ports()) {
            if ((congested == null || congested == s.queueCongested())
                    && (only == null || only.equals(s.port().deviceId()))) {
                states.add(s);
            }
        }
        states.sort(Comparator.comparingLong(IntPortState::maxQueueOccupancy).reversed()
                .thenComparing(s -> s.port().toString()));
        int max = limit == null ? states.size() : Math.min(limit, states.size());
        ObjectNode root = mapper().createObjectNode();
        ArrayNode ports = root.putArray("ports");
        for (IntPortState s : states.subList(0, max)) {
            ports.add(IntJson.portState(mapper(), s));
        }
        root.set("counters", IntJson.counters(mapper(), service.counters()));
        return ok(root).build();
    }

    /**
     * One port's INT state.
     *
     * @param device switch (device id)
     * @param port   egress port number
     * @return 200 OK with the state; 400 for a bad device id or port; 404 if the port has no INT state
     */
    @GET
    @Path("ports/{device}/{port}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response port(@PathParam("device") String device, @PathParam("port") String port) {
        ConnectPoint cp;
        try {
            long number = Long.parseLong(port);
            if (number < 0 || number > 0xffffffffL) {
                return error(Response.Status.BAD_REQUEST, "port: must be 0-4294967295, got " + port);
            }
            cp = new ConnectPoint(deviceId(device), PortNumber.portNumber(number));
        } catch (NumberFormatException e) {
            return error(Response.Status.BAD_REQUEST, "port: not a port number: \"" + port + "\"");
        } catch (IllegalArgumentException e) {
            return error(Response.Status.BAD_REQUEST, "device: " + e.getMessage());
        }
        return get(IntPortService.class).port(cp)
                .map(s -> ok(IntJson.portState(mapper(), s)).build())
                .orElseGet(() -> error(Response.Status.NOT_FOUND, "no INT state for " + cp));
    }

    private static DeviceId deviceId(String text) {
        if (!text.matches("[a-z][a-z0-9]*:\\S+")) {
            throw new IllegalArgumentException("not a device id (scheme:id): \"" + text + "\"");
        }
        return DeviceId.deviceId(text);
    }

    private Response error(Response.Status status, String message) {
        ObjectNode body = mapper().createObjectNode();
        body.put("code", status.getStatusCode());
        body.put("message", message);
        return Response.status(status).entity(body).type(MediaType.APPLICATION_JSON_TYPE).build();
    }
}
