package org.planck.web.telemetry;

import org.onosproject.rest.AbstractWebResource;
import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.MalformedBatchException;
import org.planck.api.telemetry.TelemetryIngestService;
import org.planck.api.telemetry.TelemetryJson;

import javax.ws.rs.Consumes;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.InputStream;

/**
 * Where collectors post telemetry batches (docs/protocol/telemetry-events-v1.md).
 */
@Path("v1/telemetry/events")
public class TelemetryEventsResource extends AbstractWebResource {

    /**
     * Ingests a batch of telemetry events. The batch is validated as a whole: if anything in it
     * is malformed, nothing is applied.
     *
     * @param body telemetry-events-v1 batch
     * @return 200 OK with {"accepted","unknownDevice","unknownPort"};
     *         400 BAD REQUEST with {"code":400,"message":reason} for a malformed batch
     * @onos.rsModel TelemetryBatch
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response postEvents(InputStream body) {
        TelemetryIngestService ingest = get(TelemetryIngestService.class);
        try {
            IngestResult result = ingest.ingest(body);
            return ok(TelemetryJson.ingestResult(mapper(), result)).build();
        } catch (MalformedBatchException e) {
            return TelemetryErrors.error(mapper(), Response.Status.BAD_REQUEST, e.getMessage());
        }
    }
}
