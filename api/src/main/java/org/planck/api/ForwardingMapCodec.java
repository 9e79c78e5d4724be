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

/**
 * JSON form of forwarding maps, exactly as in docs/protocol/forwarding-map-v1.md. The same
 * form is pushed to collectors and served by the REST API.
 */
public final class ForwardingMapCodec {

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
            s.put("rspanVlan", sw.rspanVlan().toShort());
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
        require(json.path("version").isInt() && json.get("version").asInt() == ForwardingMap.VERSION,
                "version must be 1");
        require(json.path("collector").isTextual(), "collector must be a string");
        require(json.path("generation").isIntegralNumber() && json.get("generation").asLong() >= 0,
                "generation must be an integer >= 0");
        require(json.path("switches").isArray(), "switches must be an array");
        List<SwitchForwarding> switches = new ArrayList<>();
        for (JsonNode s : json.get("switches")) {
            require(s.path("switch").isTextual(), "switch must be a string");
            require(s.path("rspanVlan").isInt(), "rspanVlan must be an integer");
            require(s.path("mirrorPort").isIntegralNumber(), "mirrorPort must be an integer");
            require(s.path("ports").isArray() && s.path("entries").isArray(), "ports and entries must be arrays");
            List<PortCapacity> ports = new ArrayList<>();
            for (JsonNode p : s.get("ports")) {
                require(p.path("port").isIntegralNumber() && p.path("capacityBps").isIntegralNumber(),
                        "port entries need integer port and capacityBps");
                ports.add(new PortCapacity(PortNumber.portNumber(p.get("port").asLong()),
                        p.get("capacityBps").asLong()));
            }
            Map<MacAddress, PortNumber> entries = new HashMap<>();
            for (JsonNode e : s.get("entries")) {
                require(e.path("mac").isTextual() && e.path("port").isIntegralNumber(),
                        "entries need a string mac and an integer port");
                entries.put(MacAddress.valueOf(e.get("mac").asText()), PortNumber.portNumber(e.get("port").asLong()));
            }
            switches.add(new SwitchForwarding(DeviceId.deviceId(s.get("switch").asText()),
                    VlanId.vlanId((short) s.get("rspanVlan").asInt()),
                    PortNumber.portNumber(s.get("mirrorPort").asLong()), ports, entries));
        }
        return new ForwardingMap(json.get("collector").asText(), json.get("generation").asLong(), switches);
    }

    private static void require(boolean condition, String reason) {
        if (!condition) {
            throw new IllegalArgumentException(reason);
        }
    }
}
