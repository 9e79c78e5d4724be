package org.planck.api.inband;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;
import org.planck.api.telemetry.PintHopLatency;

import java.util.List;

/**
 * JSON views of path conformance and PINT counters, shared by REST, CLI and the lab so all
 * print the same field names (documented in docs/rest.md). Absent times and indices are null.
 */
public final class PintJson {
    private PintJson() {
    }

    /**
     * One flow's conformance.
     *
     * @param mapper JSON factory
     * @param c      the verdict
     * @return JSON object
     */
    public static ObjectNode flow(ObjectMapper mapper, FlowConformance c) {
        ObjectNode n = mapper.createObjectNode();
        FlowKey f = c.flow();
        ObjectNode flow = n.putObject("flow");
        flow.put("src", f.src().toString());
        flow.put("dst", f.dst().toString());
        flow.put("proto", f.proto());
        flow.put("sport", f.srcPort());
        flow.put("dport", f.dstPort());
        n.put("status", c.status().name());
        path(n.putArray("tracedPath"), c.tracedPath());
        known(n, "tracedMillis", c.tracedMillis());
        known(n, "tracePackets", c.tracePackets());
        n.put("traces", c.traces());
        known(n, "plannedIndex", c.plannedIndex());
        path(n.putArray("plannedPath"), c.plannedPath());
        known(n, "movedMillis", c.movedMillis());
        known(n, "movedFrom", c.movedFrom());
        known(n, "movedTo", c.movedTo());
        n.put("moves", c.moves());
        known(n, "statusSinceMillis", c.statusSinceMillis());
        known(n, "confirmationMillis", c.confirmationMillis());
        ArrayNode hops = n.putArray("hopLatencies");
        for (PintHopLatency l : c.hopLatencies()) {
            ObjectNode h = hops.addObject();
            h.put("hop", l.hop());
            if (l.device().isPresent()) {
                h.put("switch", l.device().get().toString());
            } else {
                h.putNull("switch");
            }
            h.put("samples", l.samples());
            h.put("p50Ns", l.p50Ns());
            h.put("p99Ns", l.p99Ns());
        }
        return n;
    }

    /**
     * PINT counters.
     *
     * @param mapper JSON factory
     * @param c      the counters
     * @return JSON object
     */
    public static ObjectNode counters(ObjectMapper mapper, PintCounters c) {
        ObjectNode n = mapper.createObjectNode();
        n.put("flows", c.flows());
        n.put("paths", c.paths());
        n.put("latencies", c.latencies());
        n.put("refused", c.refused());
        n.put("expired", c.expired());
        n.put("nonConforming", c.nonConforming());
        n.put("confirmed", c.confirmed());
        return n;
    }

    private static void path(ArrayNode a, List<DeviceId> path) {
        for (DeviceId d : path) {
            a.add(d.toString());
        }
    }

    private static void known(ObjectNode n, String field, long value) {
        if (value == FlowConformance.NONE) {
            n.putNull(field);
        } else {
            n.put(field, value);
        }
    }
}
