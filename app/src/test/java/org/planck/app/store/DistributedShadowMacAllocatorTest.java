package org.planck.app.store;

import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.MacAddress;
import org.onosproject.store.service.AtomicCounter;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.TestStorageService;
import org.planck.api.fabric.ShadowMacPoolExhaustedException;
import org.planck.api.fabric.ShadowMacSpace;
import org.planck.api.fabric.ShadowPathId;

import java.util.HashSet;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

public class DistributedShadowMacAllocatorTest {
    private ConsistentMap<ShadowPathId, MacAddress> byPath;
    private ConsistentMap<MacAddress, ShadowPathId> byMac;
    private AtomicCounter counter;

    @Before
    public void setUp() {
        TestStorageService storage = new TestStorageService();
        byPath = storage.<ShadowPathId, MacAddress>consistentMapBuilder().withName("a")
                .withSerializer(PlanckSerializers.SERIALIZER).build();
        byMac = storage.<MacAddress, ShadowPathId>consistentMapBuilder().withName("b")
                .withSerializer(PlanckSerializers.SERIALIZER).build();
        counter = storage.atomicCounterBuilder().withName("c").build().asAtomicCounter();
    }

    /** One allocator per cluster member, all over the same shared primitives. */
    private DistributedShadowMacAllocator member(long capacity) {
        return new DistributedShadowMacAllocator(byPath, byMac, counter, capacity);
    }

    private static MacAddress host(int i) {
        return MacAddress.valueOf(0x00000a000000L + i);
    }

    @Test
    public void membersNeverShareAMacAndAgreeOnEachPath() {
        DistributedShadowMacAllocator a = member(ShadowMacSpace.SIZE);
        DistributedShadowMacAllocator b = member(ShadowMacSpace.SIZE);
        Set<MacAddress> seen = new HashSet<>();
        for (int h = 0; h < 50; h++) {
            for (int i = 0; i < 4; i++) {
                MacAddress m = (h + i) % 2 == 0 ? a.allocate(host(h), i) : b.allocate(host(h), i);
                assertTrue("locally administered shadow MAC", ShadowMacSpace.isShadow(m));
                assertTrue("unique", seen.add(m));
                assertEquals(m, a.allocate(host(h), i));
                assertEquals(m, b.allocate(host(h), i));
                assertEquals(ShadowPathId.of(host(h), i), b.owner(m).get());
            }
        }
        assertEquals(200, a.allocations().size());
    }

    @Test
    public void aClaimLostToAnotherMemberIsNotHandedOut() {
        DistributedShadowMacAllocator a = member(ShadowMacSpace.SIZE);
        // Another member claimed ordinal 0 for some path but has not yet recorded it by path.
        byMac.put(ShadowMacSpace.mac(0), ShadowPathId.of(host(99), 0));
        MacAddress m = a.allocate(host(1), 0);
        assertEquals(ShadowMacSpace.mac(1), m);
    }

    @Test
    public void releasedMacsAreReusedWhenThePoolRunsOut() {
        DistributedShadowMacAllocator a = member(4);
        for (int i = 0; i < 4; i++) {
            a.allocate(host(1), i);
        }
        try {
            a.allocate(host(2), 0);
            fail("pool of 4 handed out a fifth MAC");
        } catch (ShadowMacPoolExhaustedException e) {
            assertTrue(e.getMessage().contains("4"));
        }
        MacAddress held = a.lookup(host(1), 2).get();
        a.release(host(1));
        assertFalse(a.lookup(host(1), 2).isPresent());
        assertFalse(a.owner(held).isPresent());
        MacAddress reused = a.allocate(host(2), 0);
        assertTrue(ShadowMacSpace.ordinal(reused) < 4);
        assertEquals(1, a.allocations().size());
    }
}
