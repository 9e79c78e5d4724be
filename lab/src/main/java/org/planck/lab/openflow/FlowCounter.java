package org.planck.lab.openflow;

import org.projectfloodlight.openflow.protocol.match.Match;

/** One flow entry's counters from an OpenFlow flow-statistics reply, keyed as the switch keys it. */
public final class FlowCounter {
    private final Match match;
    private final int priority;
    private final long packets;
    private final long bytes;

    FlowCounter(Match match, int priority, long packets, long bytes) {
        this.match = match;
        this.priority = priority;
        this.packets = packets;
        this.bytes = bytes;
    }

    public Match match() {
        return match;
    }

    public int priority() {
        return priority;
    }

    public long packets() {
        return packets;
    }

    public long bytes() {
        return bytes;
    }

    @Override
    public String toString() {
        return "prio " + priority + " " + match + ": " + packets + " pkts, " + bytes + " B";
    }
}
