package org.planck.api.admission;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.planck.api.PlanckJson;
import org.planck.api.telemetry.TelemetryJson;

/**
 * JSON of guarantees, shared by REST ({@code v1/guarantees}) and the CLI.
 */
public final class AdmissionJson {
    private AdmissionJson() {
    }

    /**
     * A guarantee.
     *
     * @param mapper       mapper
     * @param g            the guarantee
     * @param currentBound its bound with the current guarantees in, ns, or null if unknown
     * @return {"id","flow"|"hosts","rateBytesPerSec","burstBytes","minPacketBytes","maxPacketBytes",
     *         "deadlineMicros","path","hops","boundMicros","currentBoundMicros","policing","meterId"}
     */
    public static ObjectNode guarantee(ObjectMapper mapper, Guarantee g, Long currentBound) {
        GuaranteeRequest r = g.request();
        ObjectNode n = mapper.createObjectNode();
        n.put("id", g.id());
        if (r.flow().isPresent()) {
            n.set("flow", TelemetryJson.flowKey(mapper, r.flow().get()));
        }
        ObjectNode hosts = n.putObject("hosts");
        hosts.put("src", PlanckJson.mac(g.src()));
        hosts.put("dst", PlanckJson.mac(g.dst()));
        n.put("rateBytesPerSec", r.rateBytesPerSec());
        n.put("burstBytes", r.burstBytes());
        n.put("minPacketBytes", r.minPacketBytes());
        n.put("maxPacketBytes", r.maxPacketBytes());
        n.put("deadlineMicros", r.deadlineNanos() / 1000.0);
        n.put("path", g.pathIndex());
        ArrayNode hops = n.putArray("hops");
        g.hops().forEach(h -> hops.add(h.device() + "/" + h.outPort()));
        n.put("boundMicros", g.boundNanos() / 1000.0);
        if (currentBound != null) {
            n.put("currentBoundMicros", currentBound / 1000.0);
        }
        n.put("policing", g.policing().name());
        g.meterId().ifPresent(m -> n.put("meterId", m.id()));
        n.put("admittedMillis", g.admittedMillis());
        return n;
    }

    /**
     * Decision counters.
     *
     * @param mapper mapper
     * @param c      counters
     * @return {"admitted","rejectedBadRequest","rejectedNoCapacity","movesVetoed","maxDecisionMicros"}
     */
    public static ObjectNode counters(ObjectMapper mapper, AdmissionCounters c) {
        ObjectNode n = mapper.createObjectNode();
        n.put("admitted", c.admitted());
        n.put("rejectedBadRequest", c.rejectedBadRequest());
        n.put("rejectedNoCapacity", c.rejectedNoCapacity());
        n.put("movesVetoed", c.movesVetoed());
        n.put("maxDecisionMicros", c.maxDecisionMicros());
        return n;
    }
}
