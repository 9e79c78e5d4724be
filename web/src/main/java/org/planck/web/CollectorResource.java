package org.planck.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.rest.AbstractWebResource;
import org.planck.api.ForwardingMap;
import org.planck.api.ForwardingMapCodec;
import org.planck.api.ForwardingMapService;
import org.planck.api.PlanckJson;
import org.planck.api.config.CollectorConfig;
import org.planck.api.config.PlanckConfigService;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.util.List;
import java.util.Optional;

/**
 * Configured collectors and their forwarding maps (docs/protocol/forwarding-map-v1.md).
 */
@Path("v1/collectors")
public class CollectorResource extends AbstractWebResource {

    /**
     * Gets the configured collectors with their push statistics.
     *
     * @return 200 OK with {"collectors": [...]}
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response getCollectors() {
        ForwardingMapService maps = get(ForwardingMapService.class);
        List<CollectorConfig> collectors = get(PlanckConfigService.class).settings()
                .map(s -> s.collectors()).orElse(List.of());
        ObjectNode root = mapper().createObjectNode();
        ArrayNode list = root.putArray("collectors");
        for (CollectorConfig c : collectors) {
            list.add(PlanckJson.collector(c, maps.pushStatus(c.id()).orElse(null), mapper()));
        }
        return ok(root).build();
    }

    /**
     * Gets a collector's forwarding map, exactly as it is pushed to the collector.
     *
     * @param id collector id
     * @return 200 OK with the version-1 forwarding map; 404 if no such collector is configured
     */
    @GET
    @Path("{id}/forwarding")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getForwardingMap(@PathParam("id") String id) {
        Optional<ForwardingMap> map = get(ForwardingMapService.class).forwardingMap(id);
        if (map.isEmpty()) {
            return ErrorResponses.notFound("unknown collector " + id);
        }
        return ok(ForwardingMapCodec.encode(map.get(), mapper())).build();
    }
}
