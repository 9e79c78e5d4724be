package org.planck.api.telemetry;

import org.planck.api.FlowKey;
import org.planck.api.te.Reroute;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * JSON views of flow records, port loads and ingest results, shared by REST and CLI so both
 * print the same field names (documented in docs/telemetry.md).
 */
public final class TelemetryJson {
    private TelemetryJson() {
    }

    /**
     * A flow's 5-tuple in the telemetry-events-v1 shape.
     *
     * @param mapper JSON factory
     * @param flow   the flow
     * @return {"src","dst","proto","sport","dport"}
     */
    public static ObjectNode flowKey(ObjectMapper mapper, FlowKey flow) {
        ObjectNode n = mapper.createObjectNode();
        n.put("src", flow.src().toString());
        n.put("dst", flow.dst().toString());
        n.put("proto", flow.proto());
        n.put("sport", flow.srcPort());
        n.put("dport", flow.dstPort());
        return n;
    }

    /**
     * A flow record.
     *
     * @param mapper    JSON factory
     * @param record    the record
     * @param congested whether its port is congested
     * @return JSON object
     */
    public static ObjectNode flowRecord(ObjectMapper mapper, FlowRecord record, boolean congested) {
        ObjectNode n = mapper.createObjectNode();
        n.set("flow", flowKey(mapper, record.flow()));
        n.put("switch", record.port().deviceId().toString());
        n.put("port", record.port().port().toLong());
        n.put("dstMac", record.dstMac().toString());
        n.put("bytesPerSec", record.bytesPerSec());
        n.put("estimator", record.estimator().name());
        n.put("samples", record.samples());
        n.put("lastSampleUs", record.lastSampleUs());
        n.put("collector", record.collector());
        n.put("updatedMillis", record.updatedMillis());
        n.put("congested", congested);
        return n;
    }

    /**
     * A port load.
     *
     * @param mapper JSON factory
     * @param load   the load
     * @return JSON object
     */
    public static ObjectNode portLoad(ObjectMapper mapper, PortLoad load) {
        ObjectNode n = mapper.createObjectNode();
        n.put("switch", load.port().deviceId().toString());
        n.put("port", load.port().port().toLong());
        n.put("loadBps", load.loadBps());
        n.put("capacityBps", load.capacityBps());
        n.put("utilization", load.utilization());
        n.put("flows", load.flowCount());
        n.put("congested", load.congested());
        return n;
    }

    /**
     * A reroute.
     *
     * @param mapper  JSON factory
     * @param reroute the reroute
     * @return JSON object; "congestedPort" is null for a manual reroute
     */
    public static ObjectNode reroute(ObjectMapper mapper, Reroute reroute) {
        ObjectNode n = mapper.createObjectNode();
        n.set("flow", flowKey(mapper, reroute.flow()));
        if (reroute.congestedPort().isPresent()) {
            ObjectNode p = n.putObject("congestedPort");
            p.put("switch", reroute.congestedPort().get().deviceId().toString());
            p.put("port", reroute.congestedPort().get().port().toLong());
        } else {
            n.putNull("congestedPort");
        }
        n.put("fromPath", reroute.fromPath());
        n.put("toPath", reroute.toPath());
        n.put("shadowMac", reroute.shadowMac().toString());
        n.put("decisionLatencyMicros", reroute.decisionLatencyMicros());
        n.put("timeMillis", reroute.timeMillis());
        return n;
    }

    /**
     * The 200 answer to a telemetry batch.
     *
     * @param mapper JSON factory
     * @param result what happened to the batch
     * @return {"accepted","unknownDevice","unknownPort"}
     */
    public static ObjectNode ingestResult(ObjectMapper mapper, IngestResult result) {
        ObjectNode n = mapper.createObjectNode();
        n.put("accepted", result.accepted());
        n.put("unknownDevice", result.unknownDevice());
        n.put("unknownPort", result.unknownPort());
        return n;
    }
}
