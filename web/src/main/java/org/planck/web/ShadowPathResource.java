package org.planck.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onlab.packet.MacAddress;
import org.onosproject.rest.AbstractWebResource;
import org.planck.api.PlanckJson;
import org.planck.api.ShadowRouteService;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.ShadowPath;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.util.Optional;

/**
 * Shadow-MAC paths toward a host.
 */
@Path("v1/paths")
public class ShadowPathResource extends AbstractWebResource {

    /**
     * Gets the shadow trees toward a host; with {@code src}, also every path from that source
     * host and which one its traffic takes by default.
     *
     * @param mac destination host MAC, e.g. 00:00:0a:00:00:02
     * @param src optional source host MAC
     * @return 200 OK with {"host": ..., "trees": [...]} (and "source", "chosenIndex", "paths");
     *         400 if a MAC is malformed; 404 if a host is unknown to Planck's routing
     */
    @GET
    @Path("{mac}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getPaths(@PathParam("mac") String mac, @QueryParam("src") String src) {
        Optional<MacAddress> dst = parseMac(mac);
        if (dst.isEmpty()) {
            return ErrorResponses.badRequest("malformed MAC address: " + mac);
        }
        ShadowRouteService routes = get(ShadowRouteService.class);
        Optional<FabricHost> host = routes.host(dst.get());
        if (host.isEmpty()) {
            return ErrorResponses.notFound("unknown host " + mac);
        }
        ObjectNode root = mapper().createObjectNode();
        root.set("host", PlanckJson.host(host.get(), mapper()));
        ArrayNode trees = root.putArray("trees");
        routes.trees(dst.get()).forEach(t -> trees.add(PlanckJson.tree(t, mapper())));
        if (src != null) {
            Optional<MacAddress> source = parseMac(src);
            if (source.isEmpty()) {
                return ErrorResponses.badRequest("malformed MAC address: " + src);
            }
            Optional<FabricHost> sourceHost = routes.host(source.get());
            if (sourceHost.isEmpty()) {
                return ErrorResponses.notFound("unknown host " + src);
            }
            root.set("source", PlanckJson.host(sourceHost.get(), mapper()));
            Optional<ShadowPath> chosen = routes.chosenPath(source.get(), dst.get());
            if (chosen.isPresent()) {
                root.put("chosenIndex", chosen.get().index());
            } else {
                root.putNull("chosenIndex");
            }
            ArrayNode paths = root.putArray("paths");
            routes.paths(source.get(), dst.get()).forEach(p -> paths.add(PlanckJson.path(p, mapper())));
        }
        return ok(root).build();
    }

    static Optional<MacAddress> parseMac(String text) {
        if (text == null || !text.matches("([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}")) {
            return Optional.empty();
        }
        return Optional.of(MacAddress.valueOf(text.replace('-', ':')));
    }
}
