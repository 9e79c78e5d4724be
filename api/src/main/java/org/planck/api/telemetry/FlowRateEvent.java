package org.planck.api.telemetry;

import com.google.common.base.MoreObjects;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A collector's rate estimate of one flow at one switch egress port ({@code FLOW_RATE}).
 */
public final class FlowRateEvent implements TelemetryEvent {
    private final FlowKey flow;
    private final ConnectPoint port;
    private final MacAddress dstMac;
    private final double bytesPerSec;
    private final long samples;
    private final long firstSampleUs;
    private final long lastSampleUs;
    private final RateEstimator estimator;
    private final boolean lowConfidence;

    /**
     * Creates a flow-rate event.
     *
     * @param flow          the flow's 5-tuple
     * @param port          switch and egress port the samples were mapped to
     * @param dstMac        destination MAC seen in the samples
     * @param bytesPerSec   smoothed rate estimate, finite, >= 0
     * @param samples       samples behind the estimate, > 0
     * @param firstSampleUs capture time of the first sample, µs since epoch
     * @param lastSampleUs  capture time of the newest sample, >= firstSampleUs
     * @param estimator     how the rate was estimated
     */
    public FlowRateEvent(FlowKey flow, ConnectPoint port, MacAddress dstMac, double bytesPerSec,
                         long samples, long firstSampleUs, long lastSampleUs, RateEstimator estimator) {
        this(flow, port, dstMac, bytesPerSec, samples, firstSampleUs, lastSampleUs, estimator, false);
    }

    /**
     * Creates a flow-rate event that may be flagged low-confidence.
     *
     * @param flow          the flow's 5-tuple
     * @param port          switch and egress port the samples were mapped to
     * @param dstMac        destination MAC seen in the samples
     * @param bytesPerSec   smoothed rate estimate, finite, >= 0
     * @param samples       samples behind the estimate, > 0
     * @param firstSampleUs capture time of the first sample, µs since epoch
     * @param lastSampleUs  capture time of the newest sample, >= firstSampleUs
     * @param estimator     how the rate was estimated
     * @param lowConfidence the rate is sampled bytes x a ratio measured on other flows
     *                      (telemetry-events-v1 {@code lowConfidence}): not to be acted on alone
     */
    public FlowRateEvent(FlowKey flow, ConnectPoint port, MacAddress dstMac, double bytesPerSec,
                         long samples, long firstSampleUs, long lastSampleUs, RateEstimator estimator,
                         boolean lowConfidence) {
        this.lowConfidence = lowConfidence;
        this.flow = checkNotNull(flow, "flow");
        this.port = checkNotNull(port, "port");
        this.dstMac = checkNotNull(dstMac, "dstMac");
        this.estimator = checkNotNull(estimator, "estimator");
        checkArgument(Double.isFinite(bytesPerSec) && bytesPerSec >= 0, "bytesPerSec must be finite and >= 0");
        checkArgument(samples > 0, "samples must be > 0");
        checkArgument(lastSampleUs >= firstSampleUs, "lastSampleUs must be >= firstSampleUs");
        this.bytesPerSec = bytesPerSec;
        this.samples = samples;
        this.firstSampleUs = firstSampleUs;
        this.lastSampleUs = lastSampleUs;
    }

    public FlowKey flow() {
        return flow;
    }

    @Override
    public ConnectPoint port() {
        return port;
    }

    public MacAddress dstMac() {
        return dstMac;
    }

    public double bytesPerSec() {
        return bytesPerSec;
    }

    public long samples() {
        return samples;
    }

    public long firstSampleUs() {
        return firstSampleUs;
    }

    public long lastSampleUs() {
        return lastSampleUs;
    }

    public RateEstimator estimator() {
        return estimator;
    }

    /**
     * Whether the rate is low-confidence (sampled bytes x a sampling ratio measured on other
     * flows; a drop-tail mirror samples smooth flows more often than bursty ones).
     *
     * @return true if the collector flagged the rate
     */
    public boolean lowConfidence() {
        return lowConfidence;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FlowRateEvent)) {
            return false;
        }
        FlowRateEvent e = (FlowRateEvent) o;
        return Double.compare(bytesPerSec, e.bytesPerSec) == 0 && samples == e.samples
                && firstSampleUs == e.firstSampleUs && lastSampleUs == e.lastSampleUs
                && flow.equals(e.flow) && port.equals(e.port) && dstMac.equals(e.dstMac)
                && estimator == e.estimator && lowConfidence == e.lowConfidence;
    }

    @Override
    public int hashCode() {
        return Objects.hash(flow, port, dstMac, bytesPerSec, samples, firstSampleUs, lastSampleUs, estimator,
                lowConfidence);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("flow", flow).add("port", port).add("dstMac", dstMac)
                .add("bytesPerSec", bytesPerSec).add("samples", samples).add("estimator", estimator).add("lowConfidence", lowConfidence).toString();
    }
}
