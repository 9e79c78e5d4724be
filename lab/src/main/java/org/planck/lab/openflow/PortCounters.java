package org.planck.lab.openflow;

/** One port's counters from an OpenFlow port-statistics reply. */
public final class PortCounters {
    private final long port;
    private final long rxPackets;
    private final long txPackets;
    private final long rxBytes;
    private final long txBytes;
    private final long txDropped;

    PortCounters(long port, long rxPackets, long txPackets, long rxBytes, long txBytes, long txDropped) {
        this.port = port;
        this.rxPackets = rxPackets;
        this.txPackets = txPackets;
        this.rxBytes = rxBytes;
        this.txBytes = txBytes;
        this.txDropped = txDropped;
    }

    public long port() {
        return port;
    }

    public long rxPackets() {
        return rxPackets;
    }

    public long txPackets() {
        return txPackets;
    }

    public long rxBytes() {
        return rxBytes;
    }

    public long txBytes() {
        return txBytes;
    }

    public long txDropped() {
        return txDropped;
    }

    @Override
    public String toString() {
        return "port " + port + ": rx " + rxPackets + " pkts/" + rxBytes + " B, tx " + txPackets + " pkts/"
                + txBytes + " B, tx dropped " + txDropped;
    }
}
