package org.planck.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

/**
 * Error answers of the Planck REST API: the HTTP status with a JSON body
 * {@code {"code": <status>, "message": "<reason>"}}, the same shape ONOS uses.
 */
final class ErrorResponses {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ErrorResponses() {
    }

    static Response error(Response.Status status, String message) {
        ObjectNode body = MAPPER.createObjectNode().put("code", status.getStatusCode()).put("message", message);
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(body.toString()).build();
    }

    static Response badRequest(String message) {
        return error(Response.Status.BAD_REQUEST, message);
    }

    static Response notFound(String message) {
        return error(Response.Status.NOT_FOUND, message);
    }
}
