package org.planck.lab.experiment;

/**
 * One finished flow of a run.
 */
public final class FlowResult {
    private final long seed;
    private final long id;
    private final String src;
    private final String dst;
    private final long bytes;
    private final long startUs;
    private final long finishUs;
    private final long retransmits;
    private final long timeouts;

    /**
     * A result.
     *
     * @param seed     workload seed of the run
     * @param id       flow id (unique within its run)
     * @param src      source host MAC
     * @param dst      destination host MAC
     * @param bytes    size
     * @param startUs  emulator start time
     * @param finishUs emulator finish time
     * @param retransmits packets the sender sent again
     * @param timeouts retransmission timeouts the sender took
     */
    public FlowResult(long seed, long id, String src, String dst, long bytes, long startUs, long finishUs, long retransmits,
                      long timeouts) {
        this.seed = seed;
        this.id = id;
        this.src = src;
        this.dst = dst;
        this.bytes = bytes;
        this.startUs = startUs;
        this.finishUs = finishUs;
        this.retransmits = retransmits;
        this.timeouts = timeouts;
    }

    public long retransmits() {
        return retransmits;
    }

    public long timeouts() {
        return timeouts;
    }

    public long seed() {
        return seed;
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

    public long finishUs() {
        return finishUs;
    }

    /**
     * Throughput: bytes / (finish - start).
     *
     * @return bits per second
     */
    public double throughputBps() {
        return bytes * 8.0 * 1e6 / Math.max(1, finishUs - startUs);
    }
}
