package org.planck.app.routing.algo;

import org.planck.api.Expect;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.planck.api.fabric.FabricGraph;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.FabricLink;

import java.util.HashSet;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * Shape and naming of generated fat trees.
 */
public class FatTreeFabricTest {

    @Test
    public void sizes() {
        int[][] expected = {{4, 16, 20, 4}, {8, 128, 80, 16}, {16, 1024, 320, 64}};
        for (int[] e : expected) {
            FatTreeFabric f = FatTreeFabric.of(e[0]);
            FabricGraph g = f.graph();
            assertEquals(e[1], g.hosts().size());
            assertEquals(e[2], g.switches().size());
            assertEquals(e[3], f.cores().size());
            // k^3/2 directed switch links: k^3/4 cables in each of two layers... per direction.
            assertEquals(e[0] * e[0] * e[0], g.links().size());
        }
    }

    @Test
    public void namingAndWiring() {
        FatTreeFabric f = FatTreeFabric.of(4);
        FabricGraph g = f.graph();
        assertEquals("of:0000000001000003", FatTreeFabric.coreId(3).toString());
        assertEquals("of:0000000002010001", FatTreeFabric.aggregationId(1, 1).toString());
        assertEquals("of:0000000003030000", FatTreeFabric.edgeId(3, 0).toString());
        FabricHost h = g.hostByIp(IpAddress.valueOf("10.2.1.3")).get();
        assertEquals(MacAddress.valueOf("00:00:0a:02:01:03"), h.mac());
        assertEquals(FatTreeFabric.edgeId(2, 1), h.edge());
        assertEquals(2, h.port().toLong());
        for (FabricLink l : g.links()) {
            // Every link has its reverse with the same ports.
            assertTrue(g.link(l.dst()).get().dst().equals(l.src()));
        }
        Set<Long> corePorts = new HashSet<>();
        for (FabricLink l : g.egressLinks(FatTreeFabric.coreId(2))) {
            corePorts.add(l.srcPort().toLong());
            assertEquals(FatTreeFabric.aggregationId(f.pod(l.dstDevice()).get(), 1), l.dstDevice());
        }
        assertEquals(Set.of(1L, 2L, 3L, 4L), corePorts);
        Expect.thrown(IllegalArgumentException.class, () -> FatTreeFabric.of(5));
        Expect.thrown(IllegalArgumentException.class, () -> FatTreeFabric.of(0));
    }
}
