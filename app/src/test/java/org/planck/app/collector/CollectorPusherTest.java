package org.planck.app.collector;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.CollectorForwardingMap;
import org.planck.api.CollectorPushStatus;
import org.planck.api.ForwardingMapCodec;
import org.planck.api.PortCapacity;
import org.planck.api.SwitchForwarding;
import org.planck.api.config.CollectorConfig;
import org.planck.api.config.PlanckSettings;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.planck.app.TestConfigs.config;

public class CollectorPusherTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private ScheduledExecutorService scheduler;
    private CollectorPusher pusher;
    private CollectorEndpoint endpoint;

    @Before
    public void setUp() throws IOException {
        scheduler = Executors.newSingleThreadScheduledExecutor();
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        pusher = new CollectorPusher(client, scheduler, Duration.ofSeconds(2), 3, 10, 50);
        endpoint = new CollectorEndpoint();
    }

    @After
    public void tearDown() throws InterruptedException {
        endpoint.close();
        scheduler.shutdownNow();
        scheduler.awaitTermination(5, TimeUnit.SECONDS);
    }

    private CollectorConfig collector(int port) {
        return new CollectorConfig("c1", IpAddress.valueOf("127.0.0.1"), port, List.of());
    }

    private static CollectorForwardingMap map(long generation) {
        return new CollectorForwardingMap("c1", generation, List.of(new SwitchForwarding(
                DeviceId.deviceId("of:0000000000000001"), VlanId.vlanId((short) 1), PortNumber.portNumber(5),
                List.of(new PortCapacity(PortNumber.portNumber(1), 1_000_000_000L)),
                Map.of(MacAddress.valueOf("00:00:00:00:00:01"), PortNumber.portNumber(1)))));
    }

    private CollectorPushStatus awaitStatus(Predicate<CollectorPushStatus> condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            CollectorPushStatus s = pusher.status("c1").orElse(null);
            if (s != null && condition.test(s)) {
                return s;
            }
            Thread.sleep(5);
        }
        fail("condition not reached; status " + pusher.status("c1"));
        return null;
    }

    @Test
    public void deliversConfigThenMapAsDocumented() throws Exception {
        PlanckSettings settings = PlanckSettings.parse(config().threshold(70).json());
        pusher.pushMap(collector(endpoint.port()), map(7));
        pusher.pushConfig(collector(endpoint.port()), settings);
        CollectorPushStatus s = awaitStatus(st -> st.delivered() == 2);
        assertEquals(7, s.deliveredGeneration());
        assertEquals(0, s.failedAttempts());
        assertEquals(2, endpoint.requests.size());
        for (CollectorEndpoint.Request r : endpoint.requests) {
            assertEquals("PUT", r.method);
            if (r.path.equals("/v1/forwarding")) {
                assertEquals(map(7), ForwardingMapCodec.decode(mapper.readTree(r.body)));
            } else {
                assertEquals("/v1/config", r.path);
                assertEquals(mapper.readTree("{\"version\":1,\"congestionThresholdPct\":70.0,"
                        + "\"hysteresisPct\":5.0,\"flowReportIntervalMs\":5}"), mapper.readTree(r.body));
            }
        }
    }

    @Test
    public void sendsTheConfiguredControlCredentials() throws Exception {
        CollectorConfig secured = new CollectorConfig("c1", IpAddress.valueOf("127.0.0.1"), endpoint.port(),
                List.of(), "te", "s3cret");
        pusher.pushMap(secured, map(4));
        pusher.pushConfig(secured, PlanckSettings.parse(config().json()));
        awaitStatus(st -> st.delivered() == 2);
        assertEquals(2, endpoint.requests.size());
        for (CollectorEndpoint.Request r : endpoint.requests) {
            // base64("te:s3cret")
            assertEquals("Basic dGU6czNjcmV0", r.authorization);
        }
    }

    @Test
    public void sendsNoCredentialsWhenNoneAreConfigured() throws Exception {
        pusher.pushMap(collector(endpoint.port()), map(4));
        awaitStatus(st -> st.delivered() == 1);
        assertEquals(null, endpoint.requests.get(0).authorization);
    }

    @Test
    public void retriesFailuresWithBackoff() throws Exception {
        endpoint.answer(503, 500);
        pusher.pushMap(collector(endpoint.port()), map(3));
        CollectorPushStatus s = awaitStatus(st -> st.delivered() == 1);
        assertEquals(2, s.failedAttempts());
        assertEquals(3, s.deliveredGeneration());
        assertEquals(3, endpoint.requests.size());
        assertEquals(endpoint.requests.get(0).body, endpoint.requests.get(2).body);
    }

    @Test
    public void staleGenerationIsRejectedNotRetried() throws Exception {
        endpoint.answer(409);
        pusher.pushMap(collector(endpoint.port()), map(2));
        CollectorPushStatus s = awaitStatus(st -> st.rejected() == 1);
        Thread.sleep(100);
        assertEquals(1, endpoint.requests.size());
        assertEquals(0, s.delivered());
        assertEquals(-1, s.deliveredGeneration());
        assertTrue(s.lastError(), s.lastError().contains("409"));
    }

    @Test
    public void givesUpOnAnUnreachableCollector() throws Exception {
        int deadPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            deadPort = probe.getLocalPort();
        }
        pusher.pushMap(collector(deadPort), map(1));
        CollectorPushStatus s = awaitStatus(st -> st.abandoned() == 1);
        assertEquals(3, s.failedAttempts());
        assertEquals(0, s.delivered());
    }

    @Test
    public void onlyTheNewestPendingMapIsDelivered() throws Exception {
        endpoint.hold();
        pusher.pushMap(collector(endpoint.port()), map(1));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (endpoint.requests.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        for (long g = 2; g <= 5; g++) {
            pusher.pushMap(collector(endpoint.port()), map(g));
        }
        assertEquals(5, pusher.status("c1").get().pendingGeneration());
        endpoint.open();
        CollectorPushStatus s = awaitStatus(st -> st.delivered() == 2);
        assertEquals(3, s.superseded());
        assertEquals(5, s.deliveredGeneration());
        assertEquals(2, endpoint.requests.size());
        assertEquals(5, ForwardingMapCodec.decode(mapper.readTree(endpoint.requests.get(1).body)).generation());
    }

    @Test
    public void forgottenCollectorGetsNothingMore() throws Exception {
        pusher.pushMap(collector(endpoint.port()), map(1));
        awaitStatus(st -> st.delivered() == 1);
        pusher.forget("c1");
        assertTrue(pusher.status("c1").isEmpty());
    }

    @Test
    public void pushesAreNotHeldByDelayedAcks() throws Exception {
        // The client writes a PUT's headers and body separately: without TCP_NODELAY the body
        // would wait for the collector's delayed ACK of the headers, ~40 ms per push.
        PlanckSettings settings = PlanckSettings.parse(config().json());
        double[] ms = new double[50];
        for (int i = -1; i < ms.length; i++) {
            long t = System.nanoTime();
            pusher.pushConfig(collector(endpoint.port()), settings);
            int want = i + 2;
            long deadline = t + TimeUnit.SECONDS.toNanos(5);
            while (pusher.status("c1").map(CollectorPushStatus::delivered).orElse(0L) < want) {
                assertTrue("push " + want + " not delivered", System.nanoTime() < deadline);
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            }
            if (i >= 0) {
                ms[i] = (System.nanoTime() - t) / 1e6;
            }
        }
        java.util.Arrays.sort(ms);
        assertTrue("median push " + ms[ms.length / 2] + " ms: a delayed-ACK stall (~40 ms)", ms[ms.length / 2] < 25);
    }
}
