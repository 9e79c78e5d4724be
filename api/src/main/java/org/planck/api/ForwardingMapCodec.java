package org.planck.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * JSON form of forwarding maps, exactly as in docs/protocol/forwarding-map-v1.md. The same
 * form is pushed to collectors and served by the REST API.
 */
public final class ForwardingMapCodec {

    /** Largest port number a switch can report (OpenFlow ports are 32-bit). */
    private static final long MAX_PORT = 0xffffffffL;
    private static final Pattern MAC = Pattern.compile("([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}");

    private ForwardingMapCodec() {
    }

    /**
     * Encodes a map.
     *
     * @param map    the map
     * @param mapper mapper creating the nodes
     * @return JSON object
     */
    public static ObjectNode encode(ForwardingMap map, ObjectMapper mapper) {
        ObjectNode root = mapper.createObjectNode();
        root.put("version", ForwardingMap.VERSION);
        root.put("collector", map.collectorId());
        root.put("generation", map.generation());
        ArrayNode switches = root.putArray("switches");
        for (SwitchForwarding sw : map.switches()) {
            ObjectNode s = switches.addObject();
            s.put("switch", sw.deviceId().toString());
            s.put("rspanVlan", (int) sw.rspanVlan().toShort());
            s.put("mirrorPort", sw.mirrorPort().toLong());
            ArrayNode ports = s.putArray("ports");
            for (PortCapacity p : sw.ports()) {
                ports.addObject().put("port", p.port().toLong()).put("capacityBps", p.capacityBps());
            }
            ArrayNode entries = s.putArray("entries");
            sw.entries().forEach((mac, port) -> entries.addObject().put("mac", mac.toString().toLowerCase())
                    .put("port", port.toLong()));
        }
        return root;
    }

    /**
     * Decodes a map (what a collector or the lab does with a push).
     *
     * @param json the JSON object
     * @return the map
     * @throws IllegalArgumentException if the JSON is not a version-1 forwarding map
     */
    public static ForwardingMap decode(JsonNode json) {
        require(json != null && json.isObject(), "forwarding map must be a JSON object");
        require(json.path("version").isIntegralNumber() && json.get("version").asLong() == ForwardingMap.VERSION,
                "version must be 1");
        require(json.path("collector").isTextual(), "collector must be a string");
        integer(json.path("generation"), 0, Long.MAX_VALUE, "generation");
        require(json.path("switches").isArray(), "switches must be an array");
        List<SwitchForwarding> switches = new ArrayList<>();
        for (JsonNode s : json.get("switches")) {
            require(s.path("switch").isTextual(), "switch must be a string");
            long vlan = integer(s.path("rspanVlan"), 1, 4094, "rspanVlan");
            long mirrorPort = integer(s.path("mirrorPort"), 1, MAX_PORT, "mirrorPort");
            require(s.path("ports").isArray() && s.path("entries").isArray(), "ports and entries must be arrays");
            List<PortCapacity> ports = new ArrayList<>();
            for (JsonNode p : s.get("ports")) {
                ports.add(new PortCapacity(PortNumber.portNumber(integer(p.path("port"), 1, MAX_PORT, "port")),
                        integer(p.path("capacityBps"), 0, Long.MAX_VALUE, "capacityBps")));
            }
            Map<MacAddress, PortNumber> entries = new HashMap<>();
            for (JsonNode e : s.get("entries")) {
                require(e.path("mac").isTextual() && MAC.matcher(e.path("mac").asText()).matches(),
                        "entries need a MAC written aa:bb:cc:dd:ee:ff");
                long port = integer(e.path("port"), 1, MAX_PORT, "entry port");
                PortNumber previous = entries.put(MacAddress.valueOf(e.get("mac").asText()),
                        PortNumber.portNumber(port));
                require(previous == null, "MAC " + e.get("mac").asText() + " listed twice for one switch");
            }
            DeviceId device;
            try {
                device = DeviceId.deviceId(s.get("switch").asText());
            } catch (IllegalArgumentException | NullPointerException ex) {
                throw new IllegalArgumentException("switch is not a device id: " + s.get("switch").asText());
            }
            switches.add(new SwitchForwarding(device, VlanId.vlanId((short) vlan), PortNumber.portNumber(mirrorPort),
                    ports, entries));
        }
        return new ForwardingMap(json.get("collector").asText(), json.get("generation").asLong(), switches);
    }

    private static long integer(JsonNode n, long min, long max, String field) {
        require(n.isIntegralNumber() && n.canConvertToLong(), field + " must be an integer");
        long v = n.asLong();
        require(v >= min && v <= max, field + " must be in [" + min + ", " + max + "], got " + v);
        return v;
    }

    private static void require(boolean condition, String reason) {
        if (!condition) {
            throw new IllegalArgumentException(reason);
        }
    }
}
