package org.planck.api.admission;

import com.google.common.collect.ImmutableList;
import org.onlab.packet.MacAddress;
import org.onosproject.net.meter.MeterId;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * An admitted flow: what was asked, the shadow path it is pinned to, the bound computed when it
 * was admitted, and how its token bucket is enforced at the ingress.
 */
public final class Guarantee {
    /** How the flow's token bucket is enforced. */
    public enum Policing {
        /** An OpenFlow meter at the ingress switch drops traffic beyond the bucket. */
        METER,
        /**
         * The ingress switch has no usable meter: the bound holds only while the sender keeps
         * to its token bucket (shaped at the host, e.g. with tc tbf).
         */
        SENDER_SHAPED
    }

    private final String id;
    private final GuaranteeRequest request;
    private final MacAddress src;
    private final MacAddress dst;
    private final int pathIndex;
    private final List<GuaranteeHop> hops;
    private final long boundNanos;
    private final Policing policing;
    private final MeterId meterId;
    private final long admittedMillis;

    /**
     * An admitted guarantee.
     *
     * @param id             cluster-unique id
     * @param request        what was asked
     * @param src            source host MAC
     * @param dst            destination host MAC
     * @param pathIndex      shadow path index it is pinned to
     * @param hops           the path's hops
     * @param boundNanos     end-to-end delay bound when admitted
     * @param policing       how the bucket is enforced
     * @param meterId        meter at the ingress, null unless policing is METER
     * @param admittedMillis wall-clock admission time
     */
    public Guarantee(String id, GuaranteeRequest request, MacAddress src, MacAddress dst, int pathIndex,
                     List<GuaranteeHop> hops, long boundNanos, Policing policing, MeterId meterId,
                     long admittedMillis) {
        this.id = checkNotNull(id, "id");
        this.request = checkNotNull(request, "request");
        this.src = checkNotNull(src, "src");
        this.dst = checkNotNull(dst, "dst");
        this.pathIndex = pathIndex;
        this.hops = ImmutableList.copyOf(hops);
        this.boundNanos = boundNanos;
        this.policing = checkNotNull(policing, "policing");
        this.meterId = meterId;
        this.admittedMillis = admittedMillis;
    }

    public String id() {
        return id;
    }

    public GuaranteeRequest request() {
        return request;
    }

    public MacAddress src() {
        return src;
    }

    public MacAddress dst() {
        return dst;
    }

    public int pathIndex() {
        return pathIndex;
    }

    public List<GuaranteeHop> hops() {
        return hops;
    }

    public long boundNanos() {
        return boundNanos;
    }

    public Policing policing() {
        return policing;
    }

    public Optional<MeterId> meterId() {
        return Optional.ofNullable(meterId);
    }

    public long admittedMillis() {
        return admittedMillis;
    }

    /**
     * The same guarantee enforced differently (once the meter is known).
     *
     * @param p       policing
     * @param meter   meter id or null
     * @return copy
     */
    public Guarantee withPolicing(Policing p, MeterId meter) {
        return new Guarantee(id, request, src, dst, pathIndex, hops, boundNanos, p, meter, admittedMillis);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Guarantee)) {
            return false;
        }
        Guarantee g = (Guarantee) o;
        return id.equals(g.id) && request.equals(g.request) && src.equals(g.src) && dst.equals(g.dst)
                && pathIndex == g.pathIndex && hops.equals(g.hops) && boundNanos == g.boundNanos
                && policing == g.policing && Objects.equals(meterId, g.meterId) && admittedMillis == g.admittedMillis;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, request, src, dst, pathIndex, hops, boundNanos, policing, meterId, admittedMillis);
    }

    @Override
    public String toString() {
        return "Guarantee{" + id + ", " + request + ", path " + pathIndex + " " + hops + ", bound " + boundNanos
                + "ns, " + policing + "}";
    }
}
