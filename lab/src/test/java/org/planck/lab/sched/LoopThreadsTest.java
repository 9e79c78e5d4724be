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
        int callerPolicy = LoopThreads.currentPolicy();
        LoopThreads.usePriority(10);
        int policy = policyOfLoopThread();
        if (ROOT) {
            assertEquals(LoopThreads.SCHED_FIFO | LoopThreads.SCHED_RESET_ON_FORK, policy);
        } else {
            // Without the privilege the thread keeps the policy it inherited and the run goes on.
            assertEquals(callerPolicy, policy);
        }
        // The thread that made the factory is untouched.
        assertEquals(callerPolicy, LoopThreads.currentPolicy());
    }

    @Test
    public void threadsStartedByLibrariesArePromotedByName() throws Exception {
        int callerPolicy = LoopThreads.currentPolicy();
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
        assertEquals(callerPolicy, LoopThreads.currentPolicy());
        assertFalse(LoopThreads.isJdkHttpThread("main"));
        assertTrue(LoopThreads.isStopTheWorldThread("GC Thread#1"));
        assertTrue(LoopThreads.isStopTheWorldThread("VM Thread"));
        assertFalse(LoopThreads.isStopTheWorldThread("G1 Conc#0"));
    }

    @Test
    public void priorityZeroLeavesThreadsAlone() throws Exception {
        LoopThreads.usePriority(0);
        // A new thread inherits its creator's policy (SCHED_OTHER normally; whatever a test
        // runner was started with otherwise).
        assertEquals(LoopThreads.currentPolicy(), policyOfLoopThread());
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

    @Test
    public void aNormalThreadMakesALoopCallAtTheLoopsPriorityAndReturnsToNormal() throws Exception {
        LoopThreads.usePriority(10);
        ExecutorService normal = Executors.newSingleThreadExecutor();
        try {
            int[] policies = normal.submit(() -> {
                int before = LoopThreads.currentPolicy();
                int during = LoopThreads.atLoopPriority(LoopThreads::currentPolicy);
                return new int[]{before, during, LoopThreads.currentPolicy()};
            }).get(10, TimeUnit.SECONDS);
            assertEquals(LoopThreads.SCHED_OTHER, policies[0]);
            assertEquals(ROOT ? LoopThreads.SCHED_FIFO | LoopThreads.SCHED_RESET_ON_FORK : LoopThreads.SCHED_OTHER,
                         policies[1]);
            assertEquals("back to normal after the call", LoopThreads.SCHED_OTHER, policies[2]);
            // Also when the call throws.
            int after = normal.submit(() -> {
                try {
                    LoopThreads.atLoopPriority(() -> {
                        throw new IllegalStateException("boom");
                    });
                } catch (IllegalStateException expected) {
                    // the call's own failure
                }
                return LoopThreads.currentPolicy();
            }).get(10, TimeUnit.SECONDS);
            assertEquals(LoopThreads.SCHED_OTHER, after);
        } finally {
            normal.shutdownNow();
        }
    }

    @Test
    public void aLoopThreadStaysAtItsPriorityThroughALoopCall() throws Exception {
        LoopThreads.usePriority(10);
        ExecutorService ex = Executors.newSingleThreadExecutor(LoopThreads.factory("test-loop"));
        try {
            int[] policies = ex.submit(() -> new int[]{LoopThreads.atLoopPriority(LoopThreads::currentPolicy),
                                                       LoopThreads.currentPolicy()}).get(10, TimeUnit.SECONDS);
            int loop = ROOT ? LoopThreads.SCHED_FIFO | LoopThreads.SCHED_RESET_ON_FORK : LoopThreads.SCHED_OTHER;
            assertEquals(loop, policies[0]);
            assertEquals(loop, policies[1]);
        } finally {
            ex.shutdownNow();
        }
    }

    @Test
    public void withoutRealTimePriorityALoopCallIsJustACall() {
        LoopThreads.usePriority(0);
        assertEquals(LoopThreads.SCHED_OTHER, (int) LoopThreads.atLoopPriority(LoopThreads::currentPolicy));
    }
}
