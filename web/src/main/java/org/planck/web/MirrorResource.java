package org.planck.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceService;
import org.onosproject.rest.AbstractWebResource;
import org.planck.api.MirrorService;
import org.planck.api.MirrorSession;
import org.planck.api.PlanckJson;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Mirror sessions: which switches copy their traffic into their mirror port, and how
 * (SWITCH_MIRROR through the MirroringConfig behaviour, or FLOW_OUTPUT on Planck's rules).
 */
@Path("v1/mirrors")
public class MirrorResource extends AbstractWebResource {

    /**
     * Gets every mirror session.
     *
     * @return 200 OK with {"mirrors": [...]}
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response getMirrors() {
        ObjectNode root = mapper().createObjectNode();
        ArrayNode list = root.putArray("mirrors");
        List<MirrorSession> sessions = get(MirrorService.class).sessions().stream()
                .sorted(Comparator.comparing(s -> s.deviceId().toString())).collect(Collectors.toList());
        sessions.forEach(s -> list.add(PlanckJson.mirror(s, mapper())));
        return ok(root).build();
    }

    /**
     * Gets the mirror session of one switch.
     *
     * @param deviceId device id, e.g. of:0000000000000001
     * @return 200 OK with the session; 404 if the device is unknown or has no mirror configured
     */
    @GET
    @Path("{deviceId}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getMirror(@PathParam("deviceId") String deviceId) {
        DeviceId id = DeviceId.deviceId(deviceId);
        Optional<MirrorSession> session = get(MirrorService.class).session(id);
        if (session.isEmpty()) {
            if (get(DeviceService.class).getDevice(id) == null) {
                return ErrorResponses.notFound("unknown device " + deviceId);
            }
            return ErrorResponses.notFound("no mirror port configured for " + deviceId);
        }
        return ok(PlanckJson.mirror(session.get(), mapper())).build();
    }
}
