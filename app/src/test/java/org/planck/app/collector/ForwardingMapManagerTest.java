package org.planck.app.collector;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.cluster.ClusterServiceAdapter;
import org.onosproject.cluster.LeadershipServiceAdapter;
import org.onosproject.cluster.NodeId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.planck.api.CollectorForwardingMap;
import org.planck.api.CollectorPushStatus;
import org.planck.api.ForwardingMapCodec;
import org.planck.api.PortCapacity;
import org.planck.api.SwitchForwarding;
import org.planck.api.fabric.FabricHost;
import org.planck.app.FabricTestBed;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.planck.app.TestConfigs.config;

public class ForwardingMapManagerTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private FabricTestBed bed;
    private CollectorEndpoint endpoint;
    private ForwardingMapManager maps;
    private volatile boolean leader = true;
    private DeviceId edge0;
    private DeviceId edge1;

    @Before
    public void setUp() throws Exception {
        bed = new FabricTestBed(4).start();
        endpoint = new CollectorEndpoint();
        edge0 = bed.fabric.edges().get(0);
        edge1 = bed.fabric.edges().get(1);
        maps = new ForwardingMapManager();
        maps.configService = bed.config;
        maps.shadowRouteService = bed.routes;
        maps.deviceService = bed.devices;
        maps.storageService = bed.storage;
        maps.clusterService = new ClusterServiceAdapter();
        maps.leadershipService = new LeadershipServiceAdapter() {
            @Override
            public NodeId getLeader(String topic) {
                return leader ? new NodeId("local") : new NodeId("other");
            }
        };
        maps.executor = FabricTestBed.direct();
        maps.requestTimeout = Duration.ofSeconds(2);
        maps.initialBackoffMs = 10;
        maps.activate();
    }

    @After
    public void tearDown() {
        maps.deactivate();
        bed.stop();
        endpoint.close();
    }

    private void configure() {
        bed.configure(config().k(4).collector("c1", "127.0.0.1", endpoint.port())
                .serve(edge0.toString(), 5, 10).serve(edge1.toString(), 5, 11).json());
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    private CollectorForwardingMap lastPushed() throws Exception {
        List<CollectorEndpoint.Request> pushes = endpoint.requests.stream()
                .filter(r -> r.path.equals("/v1/forwarding")).collect(Collectors.toList());
        return ForwardingMapCodec.decode(mapper.readTree(pushes.get(pushes.size() - 1).body));
    }

    @Test
    public void mapDescribesEveryServedSwitch() {
        configure();
        CollectorForwardingMap map = maps.forwardingMap("c1").get();
        assertEquals(2, map.switches().size());
        SwitchForwarding s0 = map.switches().get(0);
        assertEquals(edge0, s0.deviceId());
        assertEquals(VlanId.vlanId((short) 10), s0.rspanVlan());
        assertEquals(PortNumber.portNumber(5), s0.mirrorPort());
        // Ports 1-4 are monitored at 10 Gb/s; the mirror port and LOCAL are not.
        assertEquals(List.of(1L, 2L, 3L, 4L), s0.ports().stream().map(p -> p.port().toLong())
                .collect(Collectors.toList()));
        assertTrue(s0.ports().stream().allMatch(p -> p.capacityBps() == 10_000_000_000L));
        assertEquals(bed.routes.egressEntries(edge0), s0.entries());
        // Frames to a local host leave on its port, with its real MAC.
        FabricHost local = bed.fabric.graph().hostsAt(edge0).get(0);
        assertEquals(local.port(), s0.entries().get(local.mac()));
        // Frames on a shadow path toward a remote host leave on that tree's port.
        FabricHost remote = bed.fabric.graph().hostsAt(bed.fabric.edges().get(3)).get(0);
        bed.routes.trees(remote.mac()).forEach(t ->
                assertEquals(t.outPort(edge0).get(), s0.entries().get(t.shadowMac())));
        assertFalse(maps.forwardingMap("c2").isPresent());
    }

    @Test
    public void pushesConfigAndMapAndANewGenerationWhenRoutesChange() throws Exception {
        configure();
        await("first push", () -> maps.pushStatus("c1").get().delivered() >= 2);
        assertTrue(endpoint.requests.stream().anyMatch(r -> r.path.equals("/v1/config")));
        CollectorForwardingMap first = maps.forwardingMap("c1").get();
        assertEquals(first, lastPushed());

        // Cut an uplink of edge0: its entries change, so the map gets a new generation.
        ConnectPoint up = new ConnectPoint(edge0, PortNumber.portNumber(3));
        bed.links.cut(up, bed.links.link(up).dst());
        CollectorForwardingMap second = maps.forwardingMap("c1").get();
        assertTrue(second.generation() > first.generation());
        assertFalse(second.sameContent(first));
        assertFalse(second.switches().get(0).entries().containsValue(PortNumber.portNumber(3)));
        await("second push", () -> maps.pushStatus("c1").get().deliveredGeneration() == second.generation());
        assertEquals(second, lastPushed());
        CollectorPushStatus status = maps.pushStatus("c1").get();
        assertEquals(0, status.failedAttempts());
        assertEquals(0, status.rejected());
    }

    @Test
    public void unchangedMapKeepsItsGeneration() {
        configure();
        CollectorForwardingMap first = maps.forwardingMap("c1").get();
        // A new port on an unserved core changes neither routes nor served ports.
        bed.devices.addPort(bed.fabric.cores().get(0), 9, 10_000);
        assertEquals(first, maps.forwardingMap("c1").get());
    }

    @Test
    public void portCapacityChangeIsAChange() {
        configure();
        CollectorForwardingMap first = maps.forwardingMap("c1").get();
        bed.devices.addPort(edge0, 9, 40_000);
        CollectorForwardingMap second = maps.forwardingMap("c1").get();
        assertTrue(second.generation() > first.generation());
        assertTrue(second.switches().get(0).ports().contains(
                new PortCapacity(PortNumber.portNumber(9), 40_000_000_000L)));
    }

    @Test
    public void onlyTheLeaderPushes() throws Exception {
        leader = false;
        configure();
        Thread.sleep(200);
        assertTrue(endpoint.requests.isEmpty());
        assertTrue(maps.forwardingMap("c1").isPresent());
    }

    @Test
    public void removedConfigRemovesTheMaps() {
        configure();
        bed.config.remove();
        assertFalse(maps.forwardingMap("c1").isPresent());
        assertFalse(maps.pushStatus("c1").isPresent());
    }

    @Test
    public void mapEntriesUseLowercaseMacsOnTheWire() throws Exception {
        configure();
        await("push", () -> maps.pushStatus("c1").get().delivered() >= 2);
        String body = endpoint.requests.stream().filter(r -> r.path.equals("/v1/forwarding"))
                .findFirst().get().body;
        MacAddress shadow = bed.routes.trees(bed.fabric.graph().hostsAt(bed.fabric.edges().get(3)).get(0).mac())
                .get(0).shadowMac();
        assertTrue(body.contains("\"" + shadow.toString().toLowerCase() + "\""));
    }
}
