package org.planck.api.inband;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Map;

/**
 * JSON views of INT port state and counters, shared by REST and CLI so both print the same
 * field names (documented in docs/rest.md). A signal no report has carried is null.
 */
public final class IntJson {
    private IntJson() {
    }

    /**
     * A port's INT state.
     *
     * @param mapper JSON factory
     * @param s      the state
     * @return JSON object
     */
    public static ObjectNode portState(ObjectMapper mapper, IntPortState s) {
        ObjectNode n = mapper.createObjectNode();
        n.put("switch", s.port().deviceId().toString());
        n.put("port", s.port().port().toLong());
        ArrayNode queues = n.putArray("queues");
        for (Map.Entry<Integer, Long> q : s.queues().entrySet()) {
            queues.addObject().put("queue", q.getKey()).put("occupancy", q.getValue());
        }
        known(n, "maxQueueOccupancy", s.maxQueueOccupancy());
        known(n, "hopLatencyNs", s.hopLatencyNs());
        known(n, "linkUtilization", s.linkUtilization());
        known(n, "queueReportUs", s.queueReportUs());
        known(n, "latencyReportUs", s.latencyReportUs());
        known(n, "utilizationReportUs", s.utilizationReportUs());
        n.put("queueCongested", s.queueCongested());
        n.put("lastCause", s.lastCause() == null ? null : s.lastCause().name());
        n.put("collector", s.collector());
        n.put("updatedMillis", s.updatedMillis());
        return n;
    }

    /**
     * Counters of INT signal handling.
     *
     * @param mapper JSON factory
     * @param c      the counters
     * @return JSON object
     */
    public static ObjectNode counters(ObjectMapper mapper, IntCounters c) {
        ObjectNode n = mapper.createObjectNode();
        n.put("applied", c.applied());
        n.put("stale", c.stale());
        n.put("dropped", c.dropped());
        n.put("expired", c.expired());
        n.put("congested", c.congested());
        n.put("cleared", c.cleared());
        return n;
    }

    private static void known(ObjectNode n, String field, long value) {
        if (value == IntPortState.UNKNOWN) {
            n.putNull(field);
        } else {
            n.put(field, value);
        }
    }
}
