package org.planck.api.telemetry;

import com.google.common.base.MoreObjects;
import org.onosproject.net.DeviceId;
import org.planck.api.FlowKey;

import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Latency quantiles of one hop of a flow from PINT digests ({@code PINT_HOP_LATENCY},
 * telemetry-events-v3).
 */
public final class PintHopLatency {
    private final FlowKey flow;
    private final int hop;
    private final DeviceId device;
    private final long samples;
    private final long p50Ns;
    private final long p99Ns;
    private final long timeUs;

    /**
     * Creates an estimate.
     *
     * @param flow    the flow's 5-tuple
     * @param hop     1-based hop, 1..{@link PintPathEvent#MAX_HOPS}
     * @param device  the hop's switch, null while the flow's path is not decoded
     * @param samples latency samples so far, >= 1
     * @param p50Ns   median, ns, >= 0
     * @param p99Ns   99th percentile, ns, >= 0
     * @param timeUs  time of the estimate, µs since the epoch
     */
    public PintHopLatency(FlowKey flow, int hop, DeviceId device, long samples, long p50Ns, long p99Ns,
                          long timeUs) {
        this.flow = checkNotNull(flow, "flow");
        checkArgument(hop >= 1 && hop <= PintPathEvent.MAX_HOPS, "hop must be 1..%s", PintPathEvent.MAX_HOPS);
        checkArgument(samples >= 1, "samples must be >= 1");
        checkArgument(p50Ns >= 0 && p99Ns >= 0, "latencies must be >= 0");
        this.hop = hop;
        this.device = device;
        this.samples = samples;
        this.p50Ns = p50Ns;
        this.p99Ns = p99Ns;
        this.timeUs = timeUs;
    }

    public FlowKey flow() {
        return flow;
    }

    public int hop() {
        return hop;
    }

    /**
     * The hop's switch.
     *
     * @return device, empty while the path is not decoded
     */
    public Optional<DeviceId> device() {
        return Optional.ofNullable(device);
    }

    public long samples() {
        return samples;
    }

    public long p50Ns() {
        return p50Ns;
    }

    public long p99Ns() {
        return p99Ns;
    }

    public long timeUs() {
        return timeUs;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PintHopLatency)) {
            return false;
        }
        PintHopLatency l = (PintHopLatency) o;
        return hop == l.hop && samples == l.samples && p50Ns == l.p50Ns && p99Ns == l.p99Ns && timeUs == l.timeUs
                && flow.equals(l.flow) && Objects.equals(device, l.device);
    }

    @Override
    public int hashCode() {
        return Objects.hash(flow, hop, device, samples, p50Ns, p99Ns, timeUs);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("flow", flow).add("hop", hop).add("device", device)
                .add("samples", samples).add("p50Ns", p50Ns).add("p99Ns", p99Ns).toString();
    }
}
