package org.planck.web.admission;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.planck.api.FlowKey;
import org.planck.api.admission.GuaranteeRequest;

import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.Set;

/**
 * Parses a guarantee request body; every error names the offending field.
 *
 * <pre>
 * {"flow": {"src","dst","proto","sport","dport"}   or   "hosts": {"src": MAC, "dst": MAC},
 *  "rateBytesPerSec": n > 0, "burstBytes": n, "maxPacketBytes": n, "minPacketBytes": n (default 64),
 *  "deadlineMicros": n > 0}
 * </pre>
 */
final class GuaranteeRequests {
    private static final Set<String> FIELDS = Set.of("flow", "hosts", "rateBytesPerSec", "burstBytes",
            "maxPacketBytes", "minPacketBytes", "deadlineMicros");
    /** Deadlines up to an hour: anything longer is surely a unit mistake. */
    private static final long MAX_DEADLINE_MICROS = 3_600_000_000L;

    private GuaranteeRequests() {
    }

    /** A body that cannot be used. */
    static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }

    static GuaranteeRequest parse(ObjectMapper mapper, InputStream stream) throws BadRequest {
        JsonNode json;
        try {
            json = mapper.readTree(stream);
        } catch (JsonProcessingException e) {
            throw new BadRequest("malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new BadRequest("unreadable body: " + e.getMessage());
        }
        if (json == null || !json.isObject()) {
            throw new BadRequest("expected a JSON object");
        }
        checkFields(json, FIELDS, "");
        boolean hasFlow = json.hasNonNull("flow");
        if (hasFlow == json.hasNonNull("hosts")) {
            throw new BadRequest("give exactly one of flow (5-tuple) or hosts (host pair)");
        }
        long rate = integer(json, "rateBytesPerSec", 1, Long.MAX_VALUE / 8);
        long burst = integer(json, "burstBytes", 1, Long.MAX_VALUE / 8);
        int maxPacket = (int) integer(json, "maxPacketBytes", 1, 65535);
        int minPacket = json.has("minPacketBytes") ? (int) integer(json, "minPacketBytes", 1, 65535)
                : Math.min(GuaranteeRequest.DEFAULT_MIN_PACKET_BYTES, maxPacket);
        long deadlineNs = integer(json, "deadlineMicros", 1, MAX_DEADLINE_MICROS) * 1000;
        try {
            if (hasFlow) {
                return GuaranteeRequest.forFlow(flowKey(json.get("flow")), rate, burst, minPacket, maxPacket,
                        deadlineNs);
            }
            JsonNode h = json.get("hosts");
            if (!h.isObject()) {
                throw new BadRequest("hosts: expected an object {\"src\": MAC, \"dst\": MAC}");
            }
            checkFields(h, Set.of("src", "dst"), "hosts.");
            return GuaranteeRequest.forHostPair(mac(h, "src"), mac(h, "dst"), rate, burst, minPacket, maxPacket,
                    deadlineNs);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
    }

    private static void checkFields(JsonNode json, Set<String> fields, String prefix) throws BadRequest {
        for (Iterator<String> it = json.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (!fields.contains(f)) {
                throw new BadRequest(prefix + f + ": unknown field");
            }
        }
    }

    private static JsonNode required(JsonNode json, String field, String prefix) throws BadRequest {
        JsonNode n = json.get(field);
        if (n == null || n.isNull()) {
            throw new BadRequest(prefix + field + ": missing");
        }
        return n;
    }

    private static long integer(JsonNode json, String field, long min, long max) throws BadRequest {
        return integer(json, field, "", min, max);
    }

    private static long integer(JsonNode json, String field, String prefix, long min, long max) throws BadRequest {
        JsonNode n = required(json, field, prefix);
        if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < min || n.asLong() > max) {
            throw new BadRequest(prefix + field + ": expected an integer in " + min + ".." + max + ", got " + n);
        }
        return n.asLong();
    }

    private static MacAddress mac(JsonNode json, String field) throws BadRequest {
        JsonNode n = required(json, field, "hosts.");
        try {
            return MacAddress.valueOf(n.asText());
        } catch (IllegalArgumentException e) {
            throw new BadRequest("hosts." + field + ": not a MAC address: " + n);
        }
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

    private static FlowKey flowKey(JsonNode json) throws BadRequest {
        if (!json.isObject()) {
            throw new BadRequest("flow: expected an object");
        }
        checkFields(json, Set.of("src", "dst", "proto", "sport", "dport"), "flow.");
        IpAddress src = ip(json, "src");
        IpAddress dst = ip(json, "dst");
        if (src.version() != dst.version()) {
            throw new BadRequest("flow.dst: IP version differs from src");
        }
        return FlowKey.of(src, dst, (int) integer(json, "proto", "flow.", 0, 255),
                (int) integer(json, "sport", "flow.", 0, 65535), (int) integer(json, "dport", "flow.", 0, 65535));
    }
}
