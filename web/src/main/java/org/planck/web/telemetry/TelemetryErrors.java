package org.planck.web.telemetry;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

/**
 * The JSON error answer of the telemetry resources, {"code":n,"message":reason}, as ONOS REST.
 */
final class TelemetryErrors {
    private TelemetryErrors() {
    }

    static Response error(ObjectMapper mapper, Response.Status status, String message) {
        ObjectNode body = mapper.createObjectNode();
        body.put("code", status.getStatusCode());
        body.put("message", message);
        return Response.status(status).entity(body).type(MediaType.APPLICATION_JSON_TYPE).build();
    }
}
