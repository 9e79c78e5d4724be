package org.planck.api.telemetry;

import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.FlowKey;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * Properties of the codec over many generated batches (fixed seeds, so failures reproduce):
 * every valid batch round-trips, and arbitrary corruption of a valid body either decodes to a
 * valid batch or is rejected with a reason, never anything else.
 */
public class TelemetryBatchCodecPropertyTest {
    private final TelemetryBatchCodec codec = new TelemetryBatchCodec();

    static TelemetryBatch randomBatch(Random r, int maxEvents) {
        int n = r.nextInt(maxEvents + 1);
        List<TelemetryEvent> events = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ConnectPoint cp = new ConnectPoint(DeviceId.deviceId(String.format("of:%016x", r.nextInt(64))),
                    PortNumber.portNumber(r.nextInt(5) == 0 ? r.nextLong() & 0xffffffffL : r.nextInt(48)));
            if (r.nextInt(4) == 0) {
                double cap = 1e9 * (1 + r.nextInt(100));
                double load = r.nextDouble() * cap * 1.2;
                events.add(new PortCongestionNotice(cp, r.nextBoolean() ? CongestionState.CONGESTED
                        : CongestionState.CLEARED, load / cap, load, cap, r.nextLong(), r.nextLong()));
            } else {
                IpAddress src;
                IpAddress dst;
                if (r.nextBoolean()) {
                    src = IpAddress.valueOf(r.nextInt());
                    dst = IpAddress.valueOf(r.nextInt());
                } else {
                    byte[] a = new byte[16];
                    byte[] b = new byte[16];
                    r.nextBytes(a);
                    r.nextBytes(b);
                    src = IpAddress.valueOf(IpAddress.Version.INET6, a);
                    dst = IpAddress.valueOf(IpAddress.Version.INET6, b);
                }
                long first = r.nextLong() >>> 2;
                events.add(new FlowRateEvent(FlowKey.of(src, dst, r.nextInt(256), r.nextInt(65536), r.nextInt(65536)),
                        cp, MacAddress.valueOf(r.nextLong() & 0xffffffffffffL),
                        r.nextInt(10) == 0 ? 0.0 : r.nextDouble() * 1.25e10, 1 + (r.nextLong() >>> 1) % 1_000_000,
                        first, first + (r.nextLong() >>> 40), RateEstimator.values()[r.nextInt(3)]));
            }
        }
        // A third of the batches also carry PINT events (version 3).
        List<PintPathEvent> paths = new ArrayList<>();
        List<PintHopLatency> latencies = new ArrayList<>();
        if (r.nextInt(3) == 0) {
            int m = r.nextInt(maxEvents / 2 + 1);
            for (int i = 0; i < m; i++) {
                FlowKey f = FlowKey.of(IpAddress.valueOf(r.nextInt()), IpAddress.valueOf(r.nextInt()), r.nextInt(256),
                        r.nextInt(65536), r.nextInt(65536));
                if (r.nextBoolean()) {
                    List<DeviceId> path = new ArrayList<>();
                    for (int h = 0, k = 1 + r.nextInt(PintPathEvent.MAX_HOPS); h < k; h++) {
                        path.add(DeviceId.deviceId(String.format("of:%016x", r.nextInt(64))));
                    }
                    paths.add(new PintPathEvent(f, path, 1 + (r.nextLong() >>> 1) % 100_000,
                            PintPathEvent.Cause.values()[r.nextInt(2)], r.nextLong()));
                } else {
                    latencies.add(new PintHopLatency(f, 1 + r.nextInt(PintPathEvent.MAX_HOPS),
                            r.nextBoolean() ? null : DeviceId.deviceId(String.format("of:%016x", r.nextInt(64))),
                            1 + (r.nextLong() >>> 1) % 1_000_000, r.nextLong() >>> 1, r.nextLong() >>> 1, r.nextLong()));
                }
            }
        }
        return new TelemetryBatch("c" + r.nextInt(100), r.nextLong() >>> 1, r.nextLong(), events, List.of(), paths,
                latencies);
    }

    @Test
    public void randomValidBatchesRoundTrip() throws Exception {
        Random r = new Random(0x9e3779b97f4a7c15L);
        for (int i = 0; i < 500; i++) {
            TelemetryBatch b = randomBatch(r, 40);
            assertEquals(b, codec.decode(codec.encodeBytes(b)));
        }
    }

    @Test
    public void corruptedBodiesAreRejectedWithAReasonOrDecodeValidly() {
        Random r = new Random(42);
        int rejected = 0;
        int decoded = 0;
        for (int i = 0; i < 3000; i++) {
            byte[] body = codec.encodeBytes(randomBatch(r, 6));
            int edits = 1 + r.nextInt(4);
            for (int k = 0; k < edits && body.length > 0; k++) {
                int at = r.nextInt(body.length);
                switch (r.nextInt(3)) {
                    case 0:
                        body[at] = (byte) r.nextInt(256);
                        break;
                    case 1:
                        body = java.util.Arrays.copyOf(body, at);
                        break;
                    default:
                        String alphabet = "{}[]\",:0-.e9 ";
                        body[at] = (byte) alphabet.charAt(r.nextInt(alphabet.length()));
                        break;
                }
            }
            try {
                TelemetryBatch b = codec.decode(body);
                // Whatever decodes must satisfy the model's own invariants and re-encode identically.
                assertEquals(b, codec.decode(codec.encodeBytes(b)));
                decoded++;
            } catch (MalformedBatchException e) {
                assertFalse(e.getMessage().isEmpty());
                rejected++;
            }
        }
        assertTrue("corruption should mostly be detected: " + rejected, rejected > 1500);
        assertTrue(decoded + rejected == 3000);
    }
}
