package org.planck.lab.view;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;
import org.planck.api.te.Reroute;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The live view's JSON: {@code links}, {@code congestedPorts} and moves in the shapes of the
 * ONOS overlay's {@code planckTopovData} (link id "dev/port-dev/port" of one direction, the
 * busier direction's load), plus the topology to draw and the loop-latency histogram.
 */
public final class FabricViewJson {
    /** Moves listed, newest first. */
    public static final int MOVES_SHOWN = 20;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private FabricViewJson() {
    }

    /**
     * The whole view.
     *
     * @param src     running lab controller's view
     * @param nowMs   wall clock, ms
     * @return JSON object
     */
    public static ObjectNode view(FabricViewSource src, long nowMs) {
        FabricGraph g = src.graph();
        Set<ConnectPoint> congested = src.congestedPorts();
        ObjectNode root = MAPPER.createObjectNode();
        root.put("mode", src.mode());
        root.put("run", src.run());
        root.put("timeMillis", nowMs);
        root.set("topology", topology(g));
        root.set("links", links(g, src, congested));
        ArrayNode cp = root.putArray("congestedPorts");
        TreeSet<String> names = new TreeSet<>();
        congested.forEach(p -> names.add(p.toString()));
        names.forEach(cp::add);
        List<Reroute> moves = src.moves();
        root.put("movesTotal", moves.size());
        ArrayNode ms = root.putArray("moves");
        for (int i = moves.size() - 1; i >= 0 && ms.size() < MOVES_SHOWN; i--) {
            ms.add(move(moves.get(i)));
        }
        root.set("latencyHistogram", histogram(src.loopLatenciesUs()));
        return root;
    }

    /** GUI line id of a link pair: "dev/port-dev/port" of the direction whose source sorts first. */
    static String lineId(FabricLink l) {
        ConnectPoint a = l.src();
        ConnectPoint b = l.dst();
        if (a.toString().compareTo(b.toString()) > 0) {
            ConnectPoint t = a;
            a = b;
            b = t;
        }
        return a.deviceId() + "/" + a.port() + "-" + b.deviceId() + "/" + b.port();
    }

    private static Map<String, List<FabricLink>> lines(FabricGraph g) {
        Map<String, List<FabricLink>> lines = new LinkedHashMap<>();
        for (FabricLink l : g.links()) {
            lines.computeIfAbsent(lineId(l), k -> new ArrayList<>(2)).add(l);
        }
        return lines;
    }

    /** Switches by tier (hosts' switches = edge, their neighbours = aggregation, rest core). */
    private static ObjectNode topology(FabricGraph g) {
        Map<DeviceId, Integer> tier = new HashMap<>();
        for (FabricHost h : g.hosts()) {
            tier.put(h.location().deviceId(), 2);
        }
        for (FabricLink l : g.links()) {
            if (tier.getOrDefault(l.srcDevice(), -1) == 2 && !tier.containsKey(l.dstDevice())) {
                tier.put(l.dstDevice(), 1);
            }
        }
        ObjectNode t = MAPPER.createObjectNode();
        ArrayNode sw = t.putArray("switches");
        for (DeviceId d : g.switches()) {
            sw.addObject().put("id", d.toString()).put("tier", tier.getOrDefault(d, 0));
        }
        ArrayNode hosts = t.putArray("hosts");
        for (FabricHost h : g.hosts()) {
            hosts.addObject().put("mac", h.mac().toString()).put("device", h.location().deviceId().toString());
        }
        ArrayNode ls = t.putArray("links");
        for (Map.Entry<String, List<FabricLink>> e : lines(g).entrySet()) {
            FabricLink l = e.getValue().get(0);
            ls.addObject().put("id", e.getKey()).put("a", l.srcDevice().toString()).put("b", l.dstDevice().toString());
        }
        return t;
    }

    private static ArrayNode links(FabricGraph g, FabricViewSource src, Set<ConnectPoint> congested) {
        ArrayNode a = MAPPER.createArrayNode();
        for (Map.Entry<String, List<FabricLink>> e : lines(g).entrySet()) {
            FabricLink busier = null;
            double busiest = -1;
            boolean anyCongested = false;
            for (FabricLink l : e.getValue()) {
                double u = src.utilisation(l.src());
                anyCongested |= congested.contains(l.src());
                if (u > busiest) {
                    busiest = u;
                    busier = l;
                }
            }
            a.addObject()
                    .put("id", e.getKey())
                    .put("port", busier.src().toString())
                    .put("loadBps", Math.round(busiest * busier.capacityBps()))
                    .put("capacityBps", busier.capacityBps())
                    .put("utilization", busiest)
                    .put("congested", anyCongested);
        }
        return a;
    }

    private static ObjectNode move(Reroute r) {
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

    /** Power-of-two bins of µs: [0,2), [2,4), [4,8) ... up to the largest sample. */
    static ObjectNode histogram(long[] us) {
        ObjectNode h = MAPPER.createObjectNode();
        h.put("unit", "us");
        h.put("count", us.length);
        long[] sorted = us.clone();
        Arrays.sort(sorted);
        if (sorted.length > 0) {
            h.put("p50", sorted[(int) Math.min(sorted.length - 1, Math.floor(0.5 * sorted.length))]);
            h.put("p99", sorted[(int) Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))]);
        }
        ArrayNode bins = h.putArray("bins");
        if (sorted.length == 0) {
            return h;
        }
        int top = 64 - Long.numberOfLeadingZeros(Math.max(1, sorted[sorted.length - 1]));
        long[] counts = new long[top + 1];
        for (long v : sorted) {
            counts[v <= 0 ? 0 : 63 - Long.numberOfLeadingZeros(v)]++;
        }
        for (int k = 0; k < top; k++) {
            bins.addObject().put("lo", k == 0 ? 0 : 1L << k).put("hi", 1L << (k + 1)).put("count", counts[k]);
        }
        return h;
    }
}
