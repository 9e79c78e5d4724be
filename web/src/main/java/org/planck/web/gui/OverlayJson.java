package org.planck.web.gui;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.net.ConnectPoint;
import org.planck.api.te.Reroute;
import org.planck.api.telemetry.PlanckCongestionEvent;

import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * JSON of the overlay's {@code planckTopovData} message. The lab's live fabric view serves
 * the same shapes, so one page script can draw both.
 */
public final class OverlayJson {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private OverlayJson() {
    }

    /** {@code [{id, port, loadBps, capacityBps, utilization, congested}]}. */
    public static ArrayNode links(List<LinkLoad> loads) {
        ArrayNode a = MAPPER.createArrayNode();
        for (LinkLoad l : loads) {
            a.addObject()
                    .put("id", l.id())
                    .put("port", l.busierPort().toString())
                    .put("loadBps", l.loadBps())
                    .put("capacityBps", l.capacityBps())
                    .put("utilization", l.utilization())
                    .put("congested", l.congested());
        }
        return a;
    }

    /** Sorted port names, e.g. {@code ["of:0000000000000001/3"]}. */
    public static ArrayNode ports(Collection<ConnectPoint> ports) {
        ArrayNode a = MAPPER.createArrayNode();
        TreeSet<String> sorted = new TreeSet<>();
        ports.forEach(p -> sorted.add(p.toString()));
        sorted.forEach(a::add);
        return a;
    }

    /** {@code {port, type, source, utilization, receivedNanos, timeMillis}}. */
    public static ObjectNode notice(PlanckCongestionEvent e) {
        return MAPPER.createObjectNode()
                .put("port", e.subject().toString())
                .put("type", e.type().name())
                .put("source", e.source().name())
                .put("utilization", e.utilization())
                .put("receivedNanos", e.receivedNanos())
                .put("timeMillis", e.time());
    }

    /** {@code {flow, congestedPort, fromPath, toPath, shadowMac, latencyMicros, timeMillis}}. */
    public static ObjectNode reroute(Reroute r) {
        ObjectNode o = MAPPER.createObjectNode()
                .put("flow", r.flow().toString())
                .put("fromPath", r.fromPath())
                .put("toPath", r.toPath())
                .put("shadowMac", r.shadowMac().toString())
                .put("latencyMicros", r.decisionLatencyMicros())
                .put("timeMillis", r.timeMillis());
        o.put("congestedPort", r.congestedPort().map(ConnectPoint::toString).orElse(null));
        return o;
    }
}
