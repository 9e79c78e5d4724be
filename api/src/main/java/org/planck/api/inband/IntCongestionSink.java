package org.planck.api.inband;

import org.onosproject.net.ConnectPoint;
import org.planck.api.config.CongestionSignal;

/**
 * Where INT queue congestion of a port reaches the port congestion state that traffic
 * engineering acts on, and which telemetry counts there.
 */
public interface IntCongestionSink {

    /**
     * Sets or lifts a port's INT queue congestion mark. It changes the port's congestion state
     * (and posts a congestion event) only while the congestion signal includes INT.
     *
     * @param port          switch egress port
     * @param congested     the mark
     * @param receivedNanos when the triggering telemetry was received
     */
    void setIntQueueCongested(ConnectPoint port, boolean congested, long receivedNanos);

    /**
     * Chooses which telemetry declares ports congested. Ports whose combined state changes
     * with it get their congestion event now.
     *
     * @param signal mirrors, INT or both
     */
    void setCongestionSignal(CongestionSignal signal);
}
