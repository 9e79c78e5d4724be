package org.planck.web.te;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onlab.packet.IpAddress;
import org.planck.api.FlowKey;

import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.Set;

/**
 * Request parsing and JSON error answers ({"code":n,"message":reason}, as ONOS REST) of the TE resources.
 */
final class TeJson {
    private TeJson() {
    }

    /** A request body that cannot be used; the message names the offending field. */
    static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;
        private final Response.Status status;

        BadRequest(String message) {
            this(Response.Status.BAD_REQUEST, message);
        }

        BadRequest(Response.Status status, String message) {
            super(message);
            this.status = status;
        }

        Response response(ObjectMapper mapper) {
            return error(mapper, status, getMessage());
        }
    }

    static Response error(ObjectMapper mapper, Response.Status status, String message) {
        ObjectNode body = mapper.createObjectNode();
        body.put("code", status.getStatusCode());
        body.put("message", message);
        return Response.status(status).entity(body).type(MediaType.APPLICATION_JSON_TYPE).build();
    }

    /** Reads a JSON object body; the media type, if given, must be JSON. */
    static JsonNode object(ObjectMapper mapper, HttpHeaders headers, InputStream stream, Set<String> fields)
            throws BadRequest {
        MediaType type = headers.getMediaType();
        if (type != null && !type.isCompatible(MediaType.APPLICATION_JSON_TYPE)) {
            throw new BadRequest(Response.Status.UNSUPPORTED_MEDIA_TYPE,
                    "Content-Type must be application/json, got " + type);
        }
        JsonNode json;
        try {
            json = mapper.readTree(stream);
        } catch (JsonProcessingException e) {
            throw new BadRequest("malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new BadRequest("unreadable body: " + e.getMessage());
        }
        if (json == null || json.isMissingNode() || !json.isObject()) {
            throw new BadRequest("expected a JSON object");
        }
        checkFields(json, fields, "");
        return json;
    }

    private static void checkFields(JsonNode json, Set<String> fields, String prefix) throws BadRequest {
        for (Iterator<String> it = json.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (!fields.contains(f)) {
                throw new BadRequest(prefix + f + ": unknown field");
            }
        }
    }

    static JsonNode required(JsonNode json, String field, String prefix) throws BadRequest {
        JsonNode n = json.get(field);
        if (n == null || n.isNull()) {
            throw new BadRequest(prefix + field + ": missing");
        }
        return n;
    }

    static long integer(JsonNode json, String field, String prefix, long min, long max) throws BadRequest {
        JsonNode n = required(json, field, prefix);
        if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < min || n.asLong() > max) {
            throw new BadRequest(prefix + field + ": expected an integer in " + min + ".." + max);
        }
        return n.asLong();
    }

    private static IpAddress ip(JsonNode json, String field) throws BadRequest {
        JsonNode n = required(json, field, "flow.");
        if (!n.isTextual()) {
            throw new BadRequest("flow." + field + ": expected an IP address string");
        }
        try {
            return IpAddress.valueOf(n.asText());
        } catch (IllegalArgumentException e) {
            throw new BadRequest("flow." + field + ": not an IP address: \"" + n.asText() + "\"");
        }
    }

    /** A flow 5-tuple in the telemetry-events-v1 shape {"src","dst","proto","sport","dport"}. */
    static FlowKey flowKey(JsonNode json) throws BadRequest {
        if (!json.isObject()) {
            throw new BadRequest("flow: expected an object");
        }
        checkFields(json, Set.of("src", "dst", "proto", "sport", "dport"), "flow.");
        IpAddress src = ip(json, "src");
        IpAddress dst = ip(json, "dst");
        if (src.version() != dst.version()) {
            throw new BadRequest("flow.dst: IP version differs from src");
        }
        int proto = (int) integer(json, "proto", "flow.", 0, 255);
        int sport = (int) integer(json, "sport", "flow.", 0, 65535);
        int dport = (int) integer(json, "dport", "flow.", 0, 65535);
        return FlowKey.of(src, dst, proto, sport, dport);
    }
}
