package org.planck.lab.emu;

import java.util.OptionalLong;

/**
 * A flow as {@code GET /v1/flows} reports it.
 */
public final class EmulatedFlow {
    private final long id;
    private final String src;
    private final String dst;
    private final long bytes;
    private final long startUs;
    private final long finishUs;
    private final long sentBytes;
    private final boolean done;
    private final long retransmits;
    private final long timeouts;

    /**
     * A flow's state.
     *
     * @param id        flow id
     * @param src       source host MAC
     * @param dst       destination host MAC
     * @param bytes     size
     * @param startUs   emulator start time
     * @param finishUs  emulator finish time (meaningful if done)
     * @param sentBytes bytes delivered so far
     * @param done      whether all bytes were delivered
     * @param retransmits packets the sender sent again
     * @param timeouts  retransmission timeouts the sender took
     */
    public EmulatedFlow(long id, String src, String dst, long bytes, long startUs, long finishUs,
                        long sentBytes, boolean done, long retransmits, long timeouts) {
        this.id = id;
        this.src = src;
        this.dst = dst;
        this.bytes = bytes;
        this.startUs = startUs;
        this.finishUs = finishUs;
        this.sentBytes = sentBytes;
        this.done = done;
        this.retransmits = retransmits;
        this.timeouts = timeouts;
    }

    public long retransmits() {
        return retransmits;
    }

    public long timeouts() {
        return timeouts;
    }

    public long id() {
        return id;
    }

    public String src() {
        return src;
    }

    public String dst() {
        return dst;
    }

    public long bytes() {
        return bytes;
    }

    public long startUs() {
        return startUs;
    }

    public long sentBytes() {
        return sentBytes;
    }

    public boolean done() {
        return done;
    }

    /**
     * Finish time, if done.
     *
     * @return emulator µs
     */
    public OptionalLong finishUs() {
        return done ? OptionalLong.of(finishUs) : OptionalLong.empty();
    }

    /**
     * Throughput of a finished flow: bytes over (finish - start).
     *
     * @return bits per second
     * @throws IllegalStateException if not done
     */
    public double throughputBps() {
        if (!done) {
            throw new IllegalStateException("flow " + id + " has not finished");
        }
        long us = Math.max(1, finishUs - startUs);
        return bytes * 8.0 * 1e6 / us;
    }
}
