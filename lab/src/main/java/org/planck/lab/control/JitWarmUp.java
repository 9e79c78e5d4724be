package org.planck.lab.control;

import org.onlab.packet.IpAddress;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.RoutingPlan;
import org.planck.api.config.CongestionSignal;
import org.planck.api.te.TeMode;
import org.planck.api.telemetry.FlowRecord;
import org.planck.api.telemetry.IntPortSignal;
import org.planck.api.telemetry.MalformedBatchException;
import org.planck.api.telemetry.RateEstimator;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.api.telemetry.TelemetryBatchCodec;
import org.planck.app.routing.algo.FatTreeFabric;
import org.planck.app.routing.algo.InMemoryShadowMacAllocator;
import org.planck.app.routing.algo.ShadowRoutePlanner;
import org.planck.app.te.algo.TeLoop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Runs the telemetry decoding and the TE loop (the lab's flow state and placements under the
 * app's {@link TeLoop}) on a synthetic k=4 fat tree before the
 * experiment, so the first measured decisions are not taken by a cold JIT (a controller in
 * service is warm). Each round also decodes a batch of INT_PORT signals (telemetry-events v2),
 * applies them to INT port state and acts on the marks as the controller does under
 * congestionSignal "int": the INT runs' first decisions took 13-47 ms from receipt without it.
 * Touches no fabric and no collector.
 */
public final class JitWarmUp {
    private JitWarmUp() {
    }

    /**
     * Warms up.
     *
     * @param rounds decision rounds (a few thousand take well under a second)
     * @return moves decided (so the work cannot be optimised away)
     */
    public static long run(int rounds) {
        RoutingPlan plan = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(), 4).plan(FatTreeFabric.of(4, 1_000_000_000L, 1_000_000_000L).graph());
        List<FabricHost> hosts = new ArrayList<>(plan.graph().hosts());
        TelemetryBatchCodec codec = new TelemetryBatchCodec();
        long moved = 0;
        ConnectPoint at = ConnectPoint.deviceConnectPoint("of:0000000000000001/1");
        for (int r = 0; r < rounds; r++) {
            LabFlowState flows = new LabFlowState();
            LabPlacements placements = new LabPlacements();
            placements.reset(plan);
            TeLoop loop = new TeLoop(placements, flows, (type, reroute) -> { }, latency -> { });
            loop.configure(0.8, 0, 0.1);
            loop.setMode(TeMode.PLANCK);
            StringBuilder events = new StringBuilder();
            List<FlowKey> keys = new ArrayList<>();
            for (int x = 0; x < hosts.size(); x++) {
                FabricHost s = hosts.get(x);
                FabricHost d = hosts.get((x + 8) % hosts.size());
                IpAddress sip = s.ips().iterator().next();
                IpAddress dip = d.ips().iterator().next();
                FlowKey f = FlowKey.of(sip, dip, 6, 10000 + x, 5001);
                flows.put(new FlowRecord(f, at, d.mac(), 60e6 + x, RateEstimator.TCP_SEQ, 3, 2, "w", 0));
                keys.add(f);
                if (events.length() > 0) {
                    events.append(',');
                }
                events.append(String.format(Locale.ROOT, "{\"type\":\"FLOW_RATE\",\"flow\":{\"src\":\"%s\",\"dst\":\"%s\","
                        + "\"proto\":6,\"sport\":%d,\"dport\":5001},\"switch\":\"of:0000000000000001\",\"port\":1,"
                        + "\"dstMac\":\"02:70:00:00:00:01\",\"bytesPerSec\":%d.0,\"samples\":3,\"firstSampleUs\":1,"
                        + "\"lastSampleUs\":2,\"estimator\":\"TCP_SEQ\"}", sip, dip, 10000 + x, 60_000_000 + x));
            }
            try {
                codec.decode(("{\"version\":1,\"collector\":\"w\",\"seq\":" + r + ",\"sentUs\":1,\"events\":["
                        + events + "]}").getBytes(StandardCharsets.UTF_8));
            } catch (MalformedBatchException e) {
                throw new IllegalStateException("warm-up batch rejected: " + e.getMessage(), e);
            }
            loop.resync(keys);
            moved += loop.relieveOverloaded(List.of(), r).size();
            moved += intSignals(codec, loop, new IntQueueCongestion(CongestionSignal.INT, 24, 16), r);
            moved += placements.drain().map(b -> b.ops.size()).orElse(0);
        }
        return moved;
    }

    /**
     * Two INT batches: a queue building on four edge ports, then draining; each mark acted on.
     *
     * @return marks acted on plus moves decided
     */
    static long intSignals(TelemetryBatchCodec codec, TeLoop loop, IntQueueCongestion ports, int round) {
        long acted = 0;
        for (long occupancy : new long[]{40, 0}) {
            StringBuilder events = new StringBuilder();
            for (int sw = 1; sw <= 4; sw++) {
                if (events.length() > 0) {
                    events.append(',');
                }
                events.append(String.format(Locale.ROOT, "{\"type\":\"INT_PORT\",\"switch\":\"of:%016x\",\"port\":3,"
                        + "\"signal\":\"QUEUE_OCCUPANCY\",\"value\":%d,\"queue\":0,\"cause\":\"INTERVAL\","
                        + "\"reportUs\":%d}", sw, occupancy, round * 2L + (occupancy == 0 ? 1 : 0)));
            }
            TelemetryBatch batch;
            try {
                batch = codec.decode(("{\"version\":2,\"collector\":\"w-int\",\"seq\":" + round
                        + ",\"sentUs\":1,\"events\":[" + events + "]}").getBytes(StandardCharsets.UTF_8));
            } catch (MalformedBatchException e) {
                throw new IllegalStateException("warm-up INT batch rejected: " + e.getMessage(), e);
            }
            for (IntPortSignal s : batch.intSignals()) {
                Optional<Boolean> mark = ports.apply(s, batch.collector(), 0);
                if (mark.isPresent()) {
                    acted++;
                    acted += loop.onNotice(s.port(), mark.get(), OptionalDouble.of(1.0), true, round).size();
                }
            }
        }
        return acted;
    }
}
