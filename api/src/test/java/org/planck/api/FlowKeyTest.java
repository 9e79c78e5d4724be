package org.planck.api;

import org.junit.Test;
import org.onlab.packet.IpAddress;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;

public class FlowKeyTest {
    private static final IpAddress A = IpAddress.valueOf("10.0.0.1");
    private static final IpAddress B = IpAddress.valueOf("10.0.0.2");

    @Test
    public void equalKeysHashAlike() {
        assertEquals(FlowKey.of(A, B, 6, 1000, 5201), FlowKey.of(A, B, 6, 1000, 5201));
        assertEquals(FlowKey.of(A, B, 6, 1000, 5201).hashCode(), FlowKey.of(A, B, 6, 1000, 5201).hashCode());
        assertNotEquals(FlowKey.of(A, B, 6, 1000, 5201), FlowKey.of(A, B, 17, 1000, 5201));
    }

    @Test
    public void reversedSwapsEnds() {
        FlowKey k = FlowKey.of(A, B, 6, 1000, 5201);
        assertEquals(FlowKey.of(B, A, 6, 5201, 1000), k.reversed());
        assertEquals(k, k.reversed().reversed());
    }

    @Test(expected = IllegalArgumentException.class)
    public void rejectsPortOutOfRange() {
        FlowKey.of(A, B, 6, 65536, 1);
    }

    @Test(expected = IllegalArgumentException.class)
    public void rejectsProtoOutOfRange() {
        FlowKey.of(A, B, 256, 1, 1);
    }

    @Test(expected = IllegalArgumentException.class)
    public void rejectsMixedVersions() {
        FlowKey.of(A, IpAddress.valueOf("::1"), 6, 1, 1);
    }
}
