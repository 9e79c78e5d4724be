package org.planck.bench;

import org.onlab.packet.ChassisId;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.event.EventDeliveryServiceAdapter;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DefaultDevice;
import org.onosproject.net.DefaultPort;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.provider.ProviderId;
import org.onosproject.store.service.TestStorageService;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.planck.api.FlowKey;
import org.planck.api.telemetry.FlowRateEvent;
import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.MalformedBatchException;
import org.planck.api.telemetry.RateEstimator;
import org.planck.api.telemetry.TelemetryBatch;
import org.planck.api.telemetry.TelemetryBatchCodec;
import org.planck.api.telemetry.TelemetryEvent;
import org.planck.app.telemetry.OsgiPropertyConstants;
import org.planck.app.telemetry.TelemetryStateManager;

import java.io.ByteArrayInputStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Telemetry ingest throughput on one thread through the path the REST resource takes:
 * JSON body -> whole-batch validation -> flow records, port loads and congestion state.
 * Batches are full (10,000 FLOW_RATE events) over 100,000 live flows on a 16-switch,
 * 16-port fabric. Scores are events per second. Target: >= 100,000 events/s.
 * <p>
 * The replicated maps are the SDK's in-memory EventuallyConsistentMaps, so cluster
 * replication cost is not included.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 5)
@Measurement(iterations = 5, time = 5)
// Kryo (the replicated state's serializer) reflects into java.base, as in surefire's argLine.
@Fork(value = 1, jvmArgs = {"-Xms2g", "-Xmx2g",
    "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/java.lang.invoke=ALL-UNNAMED",
    "--add-opens", "java.base/java.util=ALL-UNNAMED", "--add-opens", "java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-opens", "java.base/java.util.concurrent.atomic=ALL-UNNAMED", "--add-opens", "java.base/java.net=ALL-UNNAMED",
    "--add-opens", "java.base/java.nio=ALL-UNNAMED", "--add-opens", "java.base/java.time=ALL-UNNAMED"})
public class IngestBenchmark {
    private static final int FLOWS = 100_000;
    private static final int SWITCHES = 16;
    private static final int PORTS = 16;
    private static final int EVENTS = TelemetryBatch.MAX_EVENTS;

    private final TelemetryBatchCodec codec = new TelemetryBatchCodec();
    private TelemetryStateManager manager;
    private byte[][] bodies;
    private int next;

    /** Sixteen switches with sixteen 10 Gb/s ports each. */
    static final class Fabric extends DeviceServiceAdapter {
        private final Map<DeviceId, Device> devices = new HashMap<>();
        private final Map<ConnectPoint, Port> ports = new HashMap<>();

        Fabric() {
            ProviderId pid = new ProviderId("of", "planck.bench");
            for (int s = 1; s <= SWITCHES; s++) {
                DeviceId id = DeviceId.deviceId(String.format("of:%016x", s));
                Device d = new DefaultDevice(pid, id, Device.Type.SWITCH, "planck", "hw", "sw", "sn",
                        new ChassisId(s));
                devices.put(id, d);
                for (int p = 1; p <= PORTS; p++) {
                    ports.put(new ConnectPoint(id, PortNumber.portNumber(p)),
                            new DefaultPort(d, PortNumber.portNumber(p), true, Port.Type.FIBER, 10_000));
                }
            }
        }

        @Override
        public Device getDevice(DeviceId deviceId) {
            return devices.get(deviceId);
        }

        @Override
        public Port getPort(DeviceId deviceId, PortNumber portNumber) {
            return ports.get(new ConnectPoint(deviceId, portNumber));
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws MalformedBatchException {
        // A long idle timeout keeps all 100,000 flows live even when a loaded machine takes more
        // than the default 2 s per round; the expiry sweep still runs every 250 ms.
        Hashtable<String, Object> config = new Hashtable<>();
        config.put(OsgiPropertyConstants.FLOW_IDLE_TIMEOUT_MS, "600000");
        manager = TelemetryStateManager.standalone(new TestStorageService(), new Fabric(),
                new EventDeliveryServiceAdapter(), Clock.systemUTC(), config);
        int batches = FLOWS / EVENTS;
        bodies = new byte[batches][];
        long now = System.currentTimeMillis() * 1000;
        for (int b = 0; b < batches; b++) {
            List<TelemetryEvent> events = new ArrayList<>(EVENTS);
            for (int j = 0; j < EVENTS; j++) {
                int f = b * EVENTS + j;
                FlowKey flow = FlowKey.of(IpAddress.valueOf(0x0a000000 | (f % 1024)),
                        IpAddress.valueOf(0x0a100000 | (f / 1024)), 6, 10_000 + f % 50_000, 5201);
                ConnectPoint port = new ConnectPoint(DeviceId.deviceId(String.format("of:%016x", 1 + f % SWITCHES)),
                        PortNumber.portNumber(1 + (f / SWITCHES) % PORTS));
                events.add(new FlowRateEvent(flow, port, MacAddress.valueOf(0x027000000000L | (f / 1024)),
                        125_000.0 + f % 1000, 20, now - 20_000, now, RateEstimator.TCP_SEQ));
            }
            bodies[b] = codec.encodeBytes(new TelemetryBatch("bench", b, now, events));
        }
        // Start from the steady state: every flow live, so each measured event updates a record.
        for (int b = 0; b < batches; b++) {
            IngestResult r = ingest();
            if (r.accepted() != EVENTS) {
                throw new IllegalStateException("benchmark batch not fully accepted: " + r);
            }
        }
        if (manager.flowRecordCount() != FLOWS) {
            throw new IllegalStateException("expected " + FLOWS + " live flows, got " + manager.flowRecordCount());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        manager.deactivateStandalone();
    }

    private IngestResult ingest() throws MalformedBatchException {
        byte[] body = bodies[next];
        next = (next + 1) % bodies.length;
        return manager.ingest(new ByteArrayInputStream(body));
    }

    /** Decode, validate and apply one full batch; score in events per second. */
    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public IngestResult ingestBatch() throws MalformedBatchException {
        return ingest();
    }

    /** Decode and validate only, to separate parsing from state updates. */
    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public TelemetryBatch decodeBatch() throws MalformedBatchException {
        byte[] body = bodies[next];
        next = (next + 1) % bodies.length;
        return codec.decode(body);
    }
}
