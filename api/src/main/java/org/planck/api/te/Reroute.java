package org.planck.api.te;

import com.google.common.base.MoreObjects;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.planck.api.FlowKey;

import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One move of a flow onto another shadow path, as submitted to the ingress edge switch.
 */
public final class Reroute {
    private final FlowKey flow;
    private final ConnectPoint congestedPort;
    private final int fromPath;
    private final int toPath;
    private final MacAddress shadowMac;
    private final long decisionLatencyMicros;
    private final long timeMillis;

    /**
     * Creates a reroute record.
     *
     * @param flow                  the moved flow
     * @param congestedPort         the port it was moved off, null for a manual reroute
     * @param fromPath              shadow path index before
     * @param toPath                shadow path index after
     * @param shadowMac             the shadow MAC of the new path
     * @param decisionLatencyMicros time from telemetry receipt to rule submission, µs, >= 0
     * @param timeMillis            wall-clock time of the submission, ms since epoch
     */
    public Reroute(FlowKey flow, ConnectPoint congestedPort, int fromPath, int toPath, MacAddress shadowMac,
                   long decisionLatencyMicros, long timeMillis) {
        this.flow = checkNotNull(flow, "flow");
        this.shadowMac = checkNotNull(shadowMac, "shadowMac");
        checkArgument(decisionLatencyMicros >= 0, "decision latency must be >= 0");
        this.congestedPort = congestedPort;
        this.fromPath = fromPath;
        this.toPath = toPath;
        this.decisionLatencyMicros = decisionLatencyMicros;
        this.timeMillis = timeMillis;
    }

    public FlowKey flow() {
        return flow;
    }

    /**
     * The congested port the flow was moved off.
     *
     * @return the port, empty for a manual reroute
     */
    public Optional<ConnectPoint> congestedPort() {
        return Optional.ofNullable(congestedPort);
    }

    public int fromPath() {
        return fromPath;
    }

    public int toPath() {
        return toPath;
    }

    public MacAddress shadowMac() {
        return shadowMac;
    }

    public long decisionLatencyMicros() {
        return decisionLatencyMicros;
    }

    public long timeMillis() {
        return timeMillis;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Reroute)) {
            return false;
        }
        Reroute r = (Reroute) o;
        return fromPath == r.fromPath && toPath == r.toPath && decisionLatencyMicros == r.decisionLatencyMicros
                && timeMillis == r.timeMillis && flow.equals(r.flow) && Objects.equals(congestedPort, r.congestedPort)
                && shadowMac.equals(r.shadowMac);
    }

    @Override
    public int hashCode() {
        return Objects.hash(flow, congestedPort, fromPath, toPath, shadowMac, decisionLatencyMicros, timeMillis);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("flow", flow).add("congestedPort", congestedPort)
                .add("fromPath", fromPath).add("toPath", toPath).add("shadowMac", shadowMac)
                .add("latencyUs", decisionLatencyMicros).toString();
    }
}
