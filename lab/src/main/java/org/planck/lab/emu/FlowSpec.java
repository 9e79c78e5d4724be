package org.planck.lab.emu;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onlab.packet.MacAddress;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A flow to start with {@code POST /v1/flows}: between two hosts, a size, transport ports and a
 * start offset relative to the request.
 */
public final class FlowSpec {
    private final long id;
    private final MacAddress src;
    private final MacAddress dst;
    private final long bytes;
    private final long startUs;
    private final int sport;
    private final int dport;

    /**
     * A flow.
     *
     * @param id      flow id, unique within a run
     * @param src     source host MAC
     * @param dst     destination host MAC
     * @param bytes   size, positive
     * @param startUs start offset in µs, non-negative
     * @param sport   source transport port
     * @param dport   destination transport port
     */
    public FlowSpec(long id, MacAddress src, MacAddress dst, long bytes, long startUs, int sport, int dport) {
        this.id = id;
        this.src = checkNotNull(src, "src");
        this.dst = checkNotNull(dst, "dst");
        checkArgument(!src.equals(dst), "flow %s from a host to itself", id);
        checkArgument(bytes > 0, "flow size must be positive");
        checkArgument(startUs >= 0, "start offset must be non-negative");
        checkArgument(sport > 0 && sport <= 65535 && dport > 0 && dport <= 65535, "ports out of range");
        this.bytes = bytes;
        this.startUs = startUs;
        this.sport = sport;
        this.dport = dport;
    }

    public long id() {
        return id;
    }

    public MacAddress src() {
        return src;
    }

    public MacAddress dst() {
        return dst;
    }

    public long bytes() {
        return bytes;
    }

    public long startUs() {
        return startUs;
    }

    public int sport() {
        return sport;
    }

    public int dport() {
        return dport;
    }

    /**
     * The same flow started at another offset.
     *
     * @param offsetUs start offset
     * @return flow
     */
    public FlowSpec startingAt(long offsetUs) {
        return new FlowSpec(id, src, dst, bytes, offsetUs, sport, dport);
    }

    /**
     * JSON of the flow in a {@code POST /v1/flows} body.
     *
     * @param mapper mapper
     * @return object
     */
    public ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode n = mapper.createObjectNode();
        n.put("id", id);
        n.put("src", src.toString().toLowerCase());
        n.put("dst", dst.toString().toLowerCase());
        n.put("bytes", bytes);
        n.put("startUs", startUs);
        n.put("sport", sport);
        n.put("dport", dport);
        return n;
    }

    @Override
    public String toString() {
        return "flow " + id + " " + src + "->" + dst + " " + bytes + "B";
    }
}
