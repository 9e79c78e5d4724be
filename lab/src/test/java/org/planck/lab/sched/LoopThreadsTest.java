package org.planck.lab.sched;

import org.junit.After;
import org.junit.Test;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

public class LoopThreadsTest {
    private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

    @After
    public void off() {
        LoopThreads.usePriority(0);
    }

    private static int policyOfLoopThread() throws Exception {
        ExecutorService ex = Executors.newSingleThreadExecutor(LoopThreads.factory("test-loop"));
        try {
            return ex.submit(LoopThreads::currentPolicy).get(10, TimeUnit.SECONDS);
        } finally {
            ex.shutdownNow();
        }
    }

    @Test
    public void loopThreadsRunAtFifoWithResetOnFork() throws Exception {
        LoopThreads.usePriority(10);
        int policy = policyOfLoopThread();
        if (ROOT) {
            assertEquals(LoopThreads.SCHED_FIFO | LoopThreads.SCHED_RESET_ON_FORK, policy);
        } else {
            // Without the privilege the thread stays at SCHED_OTHER and the run goes on.
            assertEquals(0, policy & ~LoopThreads.SCHED_RESET_ON_FORK);
        }
        // The thread that made the factory is untouched.
        assertEquals(0, LoopThreads.currentPolicy() & ~LoopThreads.SCHED_RESET_ON_FORK);
    }

    @Test
    public void threadsStartedByLibrariesArePromotedByName() throws Exception {
        LoopThreads.usePriority(10);
        java.util.concurrent.CountDownLatch named = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch checked = new java.util.concurrent.CountDownLatch(1);
        int[] policy = new int[1];
        Thread lib = new Thread(() -> {
            named.countDown();
            try {
                checked.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            policy[0] = LoopThreads.currentPolicy();
        }, "HTTP-Dispatcher");
        lib.start();
        named.await();
        int n = LoopThreads.promoteThreadsNamed(LoopThreads::isJdkHttpThread);
        checked.countDown();
        lib.join(10_000);
        if (ROOT) {
            assertTrue("promoted " + n, n >= 1);
            assertEquals(LoopThreads.SCHED_FIFO | LoopThreads.SCHED_RESET_ON_FORK, policy[0]);
        } else {
            assertEquals(0, n);
        }
        // The caller is no JDK HTTP thread and stays as it was.
        assertEquals(0, LoopThreads.currentPolicy() & ~LoopThreads.SCHED_RESET_ON_FORK);
        assertFalse(LoopThreads.isJdkHttpThread("main"));
    }

    @Test
    public void priorityZeroLeavesThreadsAlone() throws Exception {
        LoopThreads.usePriority(0);
        assertEquals(0, policyOfLoopThread());
        assertFalse(LoopThreads.promoteCurrentThread());
    }

    @Test
    public void outOfRangePrioritiesAreRefusedAndChangeNothing() {
        LoopThreads.usePriority(7);
        for (int bad : new int[] {-1, 100}) {
            try {
                LoopThreads.usePriority(bad);
                throw new AssertionError("accepted " + bad);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage(), e.getMessage().contains(String.valueOf(bad)));
            }
        }
        assertEquals(7, LoopThreads.priority());
    }
}
