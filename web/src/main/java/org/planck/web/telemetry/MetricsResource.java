package org.planck.web.telemetry;

import org.onosproject.rest.AbstractWebResource;
import org.planck.api.telemetry.PlanckMetricsService;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Response;

/**
 * Planck's metrics for Prometheus (docs/metrics.md).
 */
@Path("metrics")
public class MetricsResource extends AbstractWebResource {

    /**
     * Gets every Planck metric in the Prometheus text exposition format 0.0.4.
     *
     * @return 200 OK with text/plain; version=0.0.4
     */
    @GET
    @Produces("text/plain")
    public Response metrics() {
        String text = get(PlanckMetricsService.class).exposition();
        return Response.ok(text, PlanckMetricsService.CONTENT_TYPE).build();
    }
}
