package org.planck.app.routing.algo;

import org.planck.api.Expect;
import org.junit.Test;
import org.onlab.packet.MacAddress;
import org.planck.api.fabric.ShadowMacPoolExhaustedException;
import org.planck.api.fabric.ShadowMacSpace;
import org.planck.api.fabric.ShadowPathId;

import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

/**
 * The in-memory shadow MAC pool.
 */
public class InMemoryShadowMacAllocatorTest {
    private static final MacAddress H1 = MacAddress.valueOf("00:00:00:00:00:01");
    private static final MacAddress H2 = MacAddress.valueOf("00:00:00:00:00:02");

    @Test
    public void allocateIsIdempotentAndUnique() {
        InMemoryShadowMacAllocator a = new InMemoryShadowMacAllocator();
        MacAddress m10 = a.allocate(H1, 0);
        MacAddress m11 = a.allocate(H1, 1);
        MacAddress m20 = a.allocate(H2, 0);
        assertEquals(m10, a.allocate(H1, 0));
        assertNotEquals(m10, m11);
        assertNotEquals(m10, m20);
        assertTrue(ShadowMacSpace.isShadow(m20));
        assertEquals(Optional.of(ShadowPathId.of(H1, 1)), a.owner(m11));
        assertEquals(Optional.of(m20), a.lookup(H2, 0));
        assertEquals(Optional.empty(), a.lookup(H2, 1));
        assertEquals(3, a.allocatedCount());
    }

    @Test
    public void releaseFreesForReuse() {
        InMemoryShadowMacAllocator a = new InMemoryShadowMacAllocator(2);
        MacAddress m10 = a.allocate(H1, 0);
        a.allocate(H1, 1);
        ShadowMacPoolExhaustedException e =
                Expect.thrown(ShadowMacPoolExhaustedException.class, () -> a.allocate(H2, 0));
        assertTrue(e.getMessage(), e.getMessage().contains("all 2"));
        assertFalse("failed allocation leaves nothing behind", a.lookup(H2, 0).isPresent());
        a.release(H1);
        assertEquals(Optional.empty(), a.owner(m10));
        assertEquals(Optional.empty(), a.lookup(H1, 0));
        assertEquals(m10, a.allocate(H2, 0));
        a.release(MacAddress.valueOf("00:00:00:00:00:09"));
        assertEquals(1, a.allocatedCount());
    }

    @Test
    public void rejectsBadArguments() {
        Expect.thrown(IllegalArgumentException.class, () -> new InMemoryShadowMacAllocator(0));
        Expect.thrown(IllegalArgumentException.class, () -> new InMemoryShadowMacAllocator(ShadowMacSpace.SIZE + 1));
        Expect.thrown(IllegalArgumentException.class, () -> new InMemoryShadowMacAllocator().allocate(H1, -1));
    }

    @Test
    public void plannerReportsExhaustion() {
        ShadowRoutePlanner p = new ShadowRoutePlanner(new InMemoryShadowMacAllocator(10), 4);
        Expect.thrown(ShadowMacPoolExhaustedException.class, () -> p.plan(FatTreeFabric.of(4).graph()));
    }
}
