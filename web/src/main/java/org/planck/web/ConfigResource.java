package org.planck.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import org.onosproject.rest.AbstractWebResource;
import org.planck.api.config.InvalidConfigException;
import org.planck.api.config.PlanckConfigService;
import org.planck.api.config.PlanckSettings;

import javax.ws.rs.Consumes;
import javax.ws.rs.DELETE;
import javax.ws.rs.GET;
import javax.ws.rs.PUT;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * The Planck configuration in force (the application's "planck" netcfg key, see docs/config.md).
 */
@Path("v1/config")
public class ConfigResource extends AbstractWebResource {

    /**
     * Gets the configuration in force.
     *
     * @return 200 OK with the configuration as it was given; 404 if Planck is not configured
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response getConfig() {
        Optional<PlanckSettings> settings = get(PlanckConfigService.class).settings();
        if (settings.isEmpty()) {
            return ErrorResponses.notFound("Planck is not configured");
        }
        return ok(settings.get().json()).build();
    }

    /**
     * Replaces the configuration. An invalid configuration is rejected and the one in force
     * stays unchanged.
     *
     * @param headers request headers
     * @param stream  configuration JSON
     * @return 200 OK with the configuration now in force; 400 with the reason if the body is
     *         not JSON or the configuration is invalid; 415 if the body is declared as
     *         something other than JSON
     * @onos.rsModel PlanckConfig
     */
    @PUT
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response putConfig(@Context HttpHeaders headers, InputStream stream) {
        // Media types are checked here rather than by JAX-RS so a refusal carries a JSON body.
        MediaType type = headers.getMediaType();
        if (type != null && !type.isCompatible(MediaType.APPLICATION_JSON_TYPE)) {
            return ErrorResponses.error(Response.Status.UNSUPPORTED_MEDIA_TYPE,
                    "Content-Type must be application/json, got " + type);
        }
        JsonNode json;
        try {
            json = mapper().readTree(stream);
        } catch (JsonProcessingException e) {
            return ErrorResponses.badRequest("malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            return ErrorResponses.badRequest("unreadable body: " + e.getMessage());
        }
        if (json == null || json.isMissingNode()) {
            return ErrorResponses.badRequest("empty body: expected a configuration object");
        }
        try {
            PlanckSettings applied = get(PlanckConfigService.class).apply(json);
            return ok(applied.json()).build();
        } catch (InvalidConfigException e) {
            return ErrorResponses.badRequest("invalid configuration: " + e.getMessage());
        }
    }

    /**
     * Removes the configuration; Planck withdraws its routes, mirrors and forwarding maps.
     *
     * @return 204 No Content; 404 if Planck was not configured
     */
    @DELETE
    public Response deleteConfig() {
        if (!get(PlanckConfigService.class).remove()) {
            return ErrorResponses.notFound("Planck is not configured");
        }
        return Response.noContent().build();
    }
}
