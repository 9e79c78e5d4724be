package org.planck.lab.control;

import org.junit.Test;

import static org.junit.Assert.assertTrue;

/**
 * The warm-up runs the real decision path: on stride(8) with hash placement some ports are
 * over threshold and flows move.
 */
public class JitWarmUpTest {
    @Test
    public void decidesMovesOnASyntheticStride() {
        assertTrue(JitWarmUp.run(3) > 0);
    }
}
