package org.planck.api.telemetry;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;

import static org.planck.api.telemetry.TelemetryBatchCodec.FLOW_RATE;
import static org.planck.api.telemetry.TelemetryBatchCodec.INT_PORT;
import static org.planck.api.telemetry.TelemetryBatchCodec.PINT_HOP_LATENCY;
import static org.planck.api.telemetry.TelemetryBatchCodec.PINT_PATH;
import static org.planck.api.telemetry.TelemetryBatchCodec.PORT_CONGESTION;

/**
 * The writing half of {@link TelemetryBatchCodec}: a batch as the JSON a collector sends, in
 * the lowest schema version that carries its events.
 */
final class TelemetryBatchWriter {
    private TelemetryBatchWriter() {
    }

    static ObjectNode encode(ObjectMapper mapper, TelemetryBatch batch) {
        ObjectNode root = mapper.createObjectNode();
        root.put("version", batch.version());
        root.put("collector", batch.collector());
        root.put("seq", batch.seq());
        root.put("sentUs", batch.sentUs());
        ArrayNode events = root.putArray("events");
        for (TelemetryEvent e : batch.events()) {
            ObjectNode n = events.addObject();
            if (e instanceof FlowRateEvent) {
                FlowRateEvent f = (FlowRateEvent) e;
                n.put("type", FLOW_RATE);
                flow(n, f.flow());
                n.put("switch", f.port().deviceId().toString());
                n.put("port", f.port().port().toLong());
                n.put("dstMac", f.dstMac().toString());
                n.put("bytesPerSec", f.bytesPerSec());
                n.put("samples", f.samples());
                n.put("firstSampleUs", f.firstSampleUs());
                n.put("lastSampleUs", f.lastSampleUs());
                n.put("estimator", f.estimator().name());
                if (f.lowConfidence()) {
                    n.put("lowConfidence", true);
                }
            } else {
                PortCongestionNotice c = (PortCongestionNotice) e;
                n.put("type", PORT_CONGESTION);
                n.put("switch", c.port().deviceId().toString());
                n.put("port", c.port().port().toLong());
                n.put("state", c.state().name());
                n.put("utilization", c.utilization());
                n.put("loadBps", c.loadBps());
                n.put("capacityBps", c.capacityBps());
                n.put("sampleUs", c.sampleUs());
                n.put("timeUs", c.timeUs());
            }
        }
        for (IntPortSignal s : batch.intSignals()) {
            ObjectNode n = events.addObject();
            n.put("type", INT_PORT);
            n.put("switch", s.port().deviceId().toString());
            n.put("port", s.port().port().toLong());
            n.put("signal", s.signal().name());
            n.put("value", s.value());
            if (s.queue() >= 0) {
                n.put("queue", s.queue());
            }
            n.put("cause", s.cause().name());
            n.put("reportUs", s.reportUs());
        }
        for (PintPathEvent p : batch.pintPaths()) {
            ObjectNode n = events.addObject();
            n.put("type", PINT_PATH);
            flow(n, p.flow());
            ArrayNode path = n.putArray("path");
            for (DeviceId d : p.path()) {
                path.add(d.toString());
            }
            n.put("packets", p.packets());
            n.put("cause", p.cause().name());
            n.put("timeUs", p.timeUs());
        }
        for (PintHopLatency l : batch.pintLatencies()) {
            ObjectNode n = events.addObject();
            n.put("type", PINT_HOP_LATENCY);
            flow(n, l.flow());
            n.put("hop", l.hop());
            l.device().ifPresent(d -> n.put("switch", d.toString()));
            n.put("samples", l.samples());
            n.put("p50Ns", l.p50Ns());
            n.put("p99Ns", l.p99Ns());
            n.put("timeUs", l.timeUs());
        }
        return root;
    }

    private static void flow(ObjectNode n, FlowKey f) {
        ObjectNode flow = n.putObject("flow");
        flow.put("src", f.src().toString());
        flow.put("dst", f.dst().toString());
        flow.put("proto", f.proto());
        flow.put("sport", f.srcPort());
        flow.put("dport", f.dstPort());
    }
}
