package org.planck.api.telemetry;

import com.google.common.base.MoreObjects;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The controller's latest knowledge of one flow at one switch: where it leaves the switch,
 * how fast, under which destination MAC (shadow MAC while rerouted), and when it was last heard of.
 */
public final class FlowRecord {
    private final FlowKey flow;
    private final ConnectPoint port;
    private final MacAddress dstMac;
    private final double bytesPerSec;
    private final RateEstimator estimator;
    private final long samples;
    private final long lastSampleUs;
    private final String collector;
    private final long updatedMillis;
    private final boolean lowConfidence;

    /**
     * Creates a record.
     *
     * @param flow          the flow
     * @param port          switch and egress port
     * @param dstMac        destination MAC seen in the samples
     * @param bytesPerSec   latest rate estimate
     * @param estimator     how the rate was estimated
     * @param samples       samples behind the estimate
     * @param lastSampleUs  capture time of the newest sample, µs since epoch (collector clock)
     * @param collector     collector that reported it
     * @param updatedMillis controller time the report was applied, ms since epoch
     */
    public FlowRecord(FlowKey flow, ConnectPoint port, MacAddress dstMac, double bytesPerSec,
                      RateEstimator estimator, long samples, long lastSampleUs, String collector,
                      long updatedMillis) {
        this(flow, port, dstMac, bytesPerSec, estimator, samples, lastSampleUs, collector, updatedMillis, false);
    }

    /**
     * Creates a record whose rate may be flagged low-confidence.
     *
     * @param flow          the flow
     * @param port          switch and egress port
     * @param dstMac        destination MAC seen in the samples
     * @param bytesPerSec   latest rate estimate
     * @param estimator     how the rate was estimated
     * @param samples       samples behind the estimate
     * @param lastSampleUs  capture time of the newest sample, µs since epoch (collector clock)
     * @param collector     collector that reported it
     * @param updatedMillis controller time the report was applied, ms since epoch
     * @param lowConfidence the collector flagged the rate low-confidence ({@link FlowRateEvent#lowConfidence()})
     */
    public FlowRecord(FlowKey flow, ConnectPoint port, MacAddress dstMac, double bytesPerSec,
                      RateEstimator estimator, long samples, long lastSampleUs, String collector,
                      long updatedMillis, boolean lowConfidence) {
        this.lowConfidence = lowConfidence;
        this.flow = checkNotNull(flow, "flow");
        this.port = checkNotNull(port, "port");
        this.dstMac = checkNotNull(dstMac, "dstMac");
        this.estimator = checkNotNull(estimator, "estimator");
        this.collector = checkNotNull(collector, "collector");
        this.bytesPerSec = bytesPerSec;
        this.samples = samples;
        this.lastSampleUs = lastSampleUs;
        this.updatedMillis = updatedMillis;
    }

    /**
     * Creates the record of a flow-rate event applied at the given controller time.
     *
     * @param event         the event
     * @param collector     reporting collector
     * @param updatedMillis controller time, ms since epoch
     * @return the record
     */
    public static FlowRecord of(FlowRateEvent event, String collector, long updatedMillis) {
        return new FlowRecord(event.flow(), event.port(), event.dstMac(), event.bytesPerSec(),
                event.estimator(), event.samples(), event.lastSampleUs(), collector, updatedMillis,
                event.lowConfidence());
    }

    public FlowKey flow() {
        return flow;
    }

    public ConnectPoint port() {
        return port;
    }

    public MacAddress dstMac() {
        return dstMac;
    }

    public double bytesPerSec() {
        return bytesPerSec;
    }

    /**
     * The rate in bits per second, rounded; the unit of port loads.
     *
     * @return bits per second
     */
    public long bitsPerSec() {
        return Math.round(bytesPerSec * 8);
    }

    /**
     * The bits per second this flow adds to a port's load as TE acts on it: 0 for a
     * low-confidence rate, which must not by itself make a port congested or a flow the one
     * to move (a drop-tail mirror inflates sampled-bytes rates of smooth flows).
     *
     * @return bits per second, or 0 when low-confidence
     */
    public long actionableBitsPerSec() {
        return lowConfidence ? 0 : bitsPerSec();
    }

    public RateEstimator estimator() {
        return estimator;
    }

    public long samples() {
        return samples;
    }

    public long lastSampleUs() {
        return lastSampleUs;
    }

    public String collector() {
        return collector;
    }

    public long updatedMillis() {
        return updatedMillis;
    }

    /**
     * Whether the rate is low-confidence: not to be acted on alone.
     *
     * @return true if the collector flagged it
     */
    public boolean lowConfidence() {
        return lowConfidence;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FlowRecord)) {
            return false;
        }
        FlowRecord r = (FlowRecord) o;
        return Double.compare(bytesPerSec, r.bytesPerSec) == 0 && samples == r.samples
                && lastSampleUs == r.lastSampleUs && updatedMillis == r.updatedMillis
                && flow.equals(r.flow) && port.equals(r.port) && dstMac.equals(r.dstMac)
                && estimator == r.estimator && collector.equals(r.collector) && lowConfidence == r.lowConfidence;
    }

    @Override
    public int hashCode() {
        return Objects.hash(flow, port, dstMac, bytesPerSec, estimator, samples, lastSampleUs, collector,
                updatedMillis, lowConfidence);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("flow", flow).add("port", port).add("dstMac", dstMac)
                .add("bytesPerSec", bytesPerSec).add("updatedMillis", updatedMillis).toString();
    }
}
