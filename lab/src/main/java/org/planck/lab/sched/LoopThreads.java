package org.planck.lab.sched;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import com.sun.jna.Structure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Real-time priority for the threads of the control loop only.
 *
 * <p>The loop's threads (telemetry intake, rule installer, the poller) wake for a batch, work
 * for well under a millisecond and sleep again, as a switch's control plane would. Running the
 * whole JVM at SCHED_FIFO, as the lab once did, also put its JIT compiler and garbage
 * collector threads there: a FIFO thread runs until it blocks, so a compilation of tens of
 * milliseconds held a core while a telemetry batch waited for it. Here each loop thread moves
 * itself to SCHED_FIFO (with SCHED_RESET_ON_FORK) when it starts, and everything else in the
 * process stays at normal priority. Without the privilege (not root, no CAP_SYS_NICE) or off
 * Linux the threads run at normal priority and one warning says so.</p>
 */
public final class LoopThreads {
    /** Linux {@code SCHED_OTHER}, the normal policy. */
    static final int SCHED_OTHER = 0;
    /** Linux {@code SCHED_FIFO}. */
    static final int SCHED_FIFO = 1;
    /** Linux {@code SCHED_RESET_ON_FORK}: a child forked by a loop thread starts at normal priority. */
    static final int SCHED_RESET_ON_FORK = 0x40000000;
    /** Highest SCHED_FIFO priority on Linux. */
    public static final int MAX_PRIORITY = 99;

    private static final Logger log = LoggerFactory.getLogger(LoopThreads.class);
    private static final AtomicBoolean WARNED = new AtomicBoolean();
    private static volatile int priority;

    /** {@code struct sched_param}. */
    @Structure.FieldOrder("schedPriority")
    public static final class SchedParam extends Structure {
        /** The priority. */
        public int schedPriority;
    }

    private interface LibC extends Library {
        int sched_setscheduler(int pid, int policy, SchedParam param) throws LastErrorException;

        int sched_getscheduler(int pid) throws LastErrorException;
    }

    private static final class Holder {
        static final LibC LIBC = Native.load("c", LibC.class);
    }

    private LoopThreads() {
    }

    /**
     * Sets the SCHED_FIFO priority that loop threads started from now on take (0: normal
     * priority).
     *
     * @param fifoPriority 0 to 99
     */
    public static void usePriority(int fifoPriority) {
        if (fifoPriority < 0 || fifoPriority > MAX_PRIORITY) {
            throw new IllegalArgumentException("real-time priority must be 0 (off) to " + MAX_PRIORITY
                                                       + ", not " + fifoPriority);
        }
        priority = fifoPriority;
    }

    /**
     * The priority loop threads take.
     *
     * @return 0 (normal) to 99
     */
    public static int priority() {
        return priority;
    }

    /**
     * Moves the calling thread to SCHED_FIFO at the configured priority.
     *
     * @return whether the thread runs at real-time priority now
     */
    public static boolean promoteCurrentThread() {
        int p = priority;
        if (p == 0) {
            return false;
        }
        if (!Platform.isLinux()) {
            warnOnce("not Linux");
            return false;
        }
        try {
            setFifo(0, p); // tid 0: the calling thread
            return true;
        } catch (LastErrorException e) {
            warnOnce("sched_setscheduler: errno " + e.getErrorCode()
                             + (e.getErrorCode() == 1 ? " (EPERM: needs root or CAP_SYS_NICE)" : ""));
            return false;
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            warnOnce("libc not reachable: " + e.getMessage());
            return false;
        }
    }

    /** SCHED_FIFO at {@code priority} with SCHED_RESET_ON_FORK for thread {@code tid}. */
    /**
     * Runs a call that takes a lock the loop's threads also take (the lab controller's, the
     * loop-latency log's) from a thread that otherwise runs at normal priority, at the loop's
     * priority for the length of the call. A normal thread that holds such a lock can be kept
     * off both cores by the real-time threads (the fabric, the collector) for milliseconds
     * while a loop thread waits for the lock: Java's monitors pass no priority on. The thread
     * returns to the normal policy afterwards; a loop thread, or a run without real-time
     * priority, just makes the call.
     *
     * @param call the call
     * @param <T>  its result type
     * @return its result
     */
    public static <T> T atLoopPriority(Supplier<T> call) {
        int p = priority;
        boolean raised = false;
        if (p != 0 && Platform.isLinux()) {
            try {
                if ((Holder.LIBC.sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) == SCHED_OTHER) {
                    setFifo(0, p);
                    raised = true;
                }
            } catch (LastErrorException | UnsatisfiedLinkError | NoClassDefFoundError e) {
                warnOnce("sched_setscheduler for a call at the loop's priority: " + e.getMessage());
            }
        }
        try {
            return call.get();
        } finally {
            if (raised) {
                SchedParam param = new SchedParam();
                param.schedPriority = 0;
                Holder.LIBC.sched_setscheduler(0, SCHED_OTHER, param);
            }
        }
    }

    /**
     * {@link #atLoopPriority(Supplier)} for a call without a result.
     *
     * @param call the call
     */
    public static void atLoopPriority(Runnable call) {
        atLoopPriority(() -> {
            call.run();
            return null;
        });
    }

    private static void setFifo(int tid, int priority) {
        SchedParam param = new SchedParam();
        param.schedPriority = priority;
        Holder.LIBC.sched_setscheduler(tid, SCHED_FIFO | SCHED_RESET_ON_FORK, param);
    }

    private static void warnOnce(String why) {
        if (WARNED.compareAndSet(false, true)) {
            log.warn("Loop threads run at normal priority ({})", why);
        }
    }

    /**
     * Moves every thread of this process whose name satisfies a test to SCHED_FIFO: for the
     * loop's threads that a library starts itself (the JDK HTTP server's dispatcher, which reads
     * every request before the handler runs; the JDK HTTP client's selector, which delivers
     * every answer). Names are the kernel's, cut to 15 characters.
     *
     * @param name which threads
     * @return how many threads run at real-time priority now
     */
    public static int promoteThreadsNamed(Predicate<String> name) {
        int p = priority;
        if (p == 0 || !Platform.isLinux()) {
            return 0;
        }
        int promoted = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc/self/task"))) {
            for (Path task : tasks) {
                String comm;
                try {
                    comm = Files.readString(task.resolve("comm")).strip();
                } catch (IOException e) {
                    continue; // the thread ended
                }
                if (!name.test(comm)) {
                    continue;
                }
                try {
                    setFifo(Integer.parseInt(task.getFileName().toString()), p);
                    promoted++;
                } catch (LastErrorException e) {
                    warnOnce("sched_setscheduler(" + comm + "): errno " + e.getErrorCode());
                }
            }
        } catch (IOException | UnsatisfiedLinkError e) {
            warnOnce("cannot list this process's threads: " + e.getMessage());
        }
        return promoted;
    }

    /**
     * Whether a (kernel) thread name is one of the JDK's HTTP server or client threads.
     *
     * @param comm thread name as in {@code /proc/self/task/<tid>/comm}
     * @return whether it is
     */
    public static boolean isJdkHttpThread(String comm) {
        return comm.startsWith("HTTP-Dispatcher") || comm.startsWith("HttpClient-");
    }

    /**
     * Whether a (kernel) thread name is one of the JVM's threads that work while every Java
     * thread is stopped (the VM thread, the parallel GC workers): a collection pauses the loop
     * too, and at normal priority its workers share the cores with the fabric and last several
     * times longer. The concurrent GC threads are not among them.
     *
     * @param comm thread name as in {@code /proc/self/task/<tid>/comm}
     * @return whether it is
     */
    public static boolean isStopTheWorldThread(String comm) {
        return comm.equals("VM Thread") || comm.startsWith("GC Thread#");
    }

    /**
     * A factory of daemon threads that take the loop's real-time priority when they start.
     *
     * @param name thread name
     * @return factory
     */
    public static ThreadFactory factory(String name) {
        return r -> {
            Thread t = new Thread(() -> {
                promoteCurrentThread();
                r.run();
            }, name);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * The calling thread's scheduling policy as the kernel reports it (with
     * {@link #SCHED_RESET_ON_FORK} or'ed in when set).
     *
     * @return policy
     */
    static int currentPolicy() {
        return Holder.LIBC.sched_getscheduler(0);
    }
}
