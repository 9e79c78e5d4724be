package org.planck.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;
import org.planck.api.config.CollectorConfig;
import org.planck.api.config.ServedSwitch;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.fabric.PathHop;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowTree;

import java.util.Map;
import java.util.TreeMap;

/**
 * JSON views of Planck's state, shared by the REST API and the CLI's JSON output.
 */
public final class PlanckJson {

    private PlanckJson() {
    }

    /**
     * A MAC as the wire contracts write it: lower case.
     *
     * @param mac MAC
     * @return text
     */
    public static String mac(MacAddress mac) {
        return mac.toString().toLowerCase();
    }

    /**
     * A mirror session.
     *
     * @param s      session
     * @param mapper mapper
     * @return JSON object
     */
    public static ObjectNode mirror(MirrorSession s, ObjectMapper mapper) {
        ObjectNode n = mapper.createObjectNode();
        n.put("device", s.deviceId().toString());
        n.put("mirrorPort", s.mirrorPort().toLong());
        n.put("rspanVlan", s.rspanVlan().toShort());
        n.put("mode", s.mode().name());
        n.put("state", s.state().name());
        ArrayNode ports = n.putArray("monitoredPorts");
        s.monitoredPorts().forEach(p -> ports.add(p.toLong()));
        n.put("detail", s.detail());
        return n;
    }

    /**
     * A routed host.
     *
     * @param h      host
     * @param mapper mapper
     * @return JSON object
     */
    public static ObjectNode host(FabricHost h, ObjectMapper mapper) {
        ObjectNode n = mapper.createObjectNode();
        n.put("mac", mac(h.mac()));
        ArrayNode ips = n.putArray("ips");
        h.ips().forEach(ip -> ips.add(ip.toString()));
        n.put("device", h.edge().toString());
        n.put("port", h.port().toLong());
        return n;
    }

    /**
     * A shadow tree: its shadow MAC and, per switch, the port frames to that MAC leave on
     * (the root's entry is the host port, where the real MAC is restored).
     *
     * @param t      tree
     * @param mapper mapper
     * @return JSON object
     */
    public static ObjectNode tree(ShadowTree t, ObjectMapper mapper) {
        ObjectNode n = mapper.createObjectNode();
        n.put("index", t.index());
        n.put("shadowMac", mac(t.shadowMac()));
        n.put("root", t.root().toString());
        Map<String, Long> hops = new TreeMap<>();
        for (Map.Entry<DeviceId, FabricLink> e : t.nextLinks().entrySet()) {
            hops.put(e.getKey().toString(), e.getValue().srcPort().toLong());
        }
        hops.put(t.root().toString(), t.destination().port().toLong());
        ArrayNode next = n.putArray("nextHops");
        hops.forEach((d, p) -> next.addObject().put("device", d).put("port", p));
        n.put("sources", t.sources().size());
        return n;
    }

    /**
     * A shadow path from a source edge switch.
     *
     * @param p      path
     * @param mapper mapper
     * @return JSON object
     */
    public static ObjectNode path(ShadowPath p, ObjectMapper mapper) {
        ObjectNode n = mapper.createObjectNode();
        n.put("index", p.index());
        n.put("shadowMac", mac(p.shadowMac()));
        ArrayNode hops = n.putArray("hops");
        for (PathHop h : p.hops()) {
            hops.addObject().put("device", h.device().toString()).put("port", h.outPort().toLong());
        }
        return n;
    }

    /**
     * A configured collector with its push statistics.
     *
     * @param c      collector
     * @param status push statistics, or null
     * @param mapper mapper
     * @return JSON object
     */
    public static ObjectNode collector(CollectorConfig c, CollectorPushStatus status, ObjectMapper mapper) {
        ObjectNode n = mapper.createObjectNode();
        n.put("id", c.id());
        n.put("address", c.address().toString());
        n.put("controlPort", c.controlPort());
        ArrayNode switches = n.putArray("switches");
        for (ServedSwitch s : c.switches()) {
            ObjectNode sw = switches.addObject();
            sw.put("device", s.deviceId().toString());
            sw.put("mirrorPort", s.mirrorPort().toLong());
            sw.put("rspanVlan", s.rspanVlan().toShort());
            s.bridge().ifPresent(b -> sw.put("bridge", b));
        }
        if (status != null) {
            ObjectNode push = n.putObject("push");
            push.put("deliveredGeneration", status.deliveredGeneration());
            push.put("pendingGeneration", status.pendingGeneration());
            push.put("delivered", status.delivered());
            push.put("failedAttempts", status.failedAttempts());
            push.put("rejected", status.rejected());
            push.put("superseded", status.superseded());
            push.put("abandoned", status.abandoned());
            push.put("lastError", status.lastError());
        }
        return n;
    }
}
