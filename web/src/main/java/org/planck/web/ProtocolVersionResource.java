package org.planck.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.rest.AbstractWebResource;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

/**
 * Versions of the wire contracts this build speaks, so a collector can check compatibility.
 */
@Path("v1/versions")
public class ProtocolVersionResource extends AbstractWebResource {

    /** Version of the telemetry event batches accepted at v1/telemetry/events. */
    public static final int TELEMETRY_EVENTS_VERSION = 1;
    /** Version of the forwarding map pushed to and served for collectors. */
    public static final int FORWARDING_MAP_VERSION = 1;

    /**
     * Gets the contract versions of this build.
     *
     * @return 200 OK with the telemetry and forwarding-map schema versions
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response versions() {
        ObjectNode root = mapper().createObjectNode();
        root.put("telemetryEvents", TELEMETRY_EVENTS_VERSION);
        root.put("forwardingMap", FORWARDING_MAP_VERSION);
        return ok(root).build();
    }
}
