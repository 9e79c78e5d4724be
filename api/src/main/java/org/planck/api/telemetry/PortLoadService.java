package org.planck.api.telemetry;

import org.onosproject.event.ListenerService;
import org.onosproject.net.ConnectPoint;

import java.util.Collection;
import java.util.Set;

/**
 * Per-port load (sum of the rates of flows placed on each port) and congestion state; posts
 * {@link PlanckCongestionEvent}s on congestion transitions.
 */
public interface PortLoadService extends ListenerService<PlanckCongestionEvent, PlanckCongestionListener> {

    /**
     * Load of a port.
     *
     * @param port switch port
     * @return its load; zero load if no flow is placed on it
     */
    PortLoad load(ConnectPoint port);

    /**
     * Loads of every port that carries a flow or is congested.
     *
     * @return port loads
     */
    Collection<PortLoad> loads();

    /**
     * Ports currently congested.
     *
     * @return congested ports
     */
    Set<ConnectPoint> congestedPorts();

    /**
     * Changes the load-view congestion threshold, e.g. from network config.
     *
     * @param thresholdPercent  utilisation (% of capacity) at or above which a port is congested, (0, 1000]
     * @param hysteresisPercent a congested port clears below threshold minus this, [0, threshold)
     */
    void setCongestionThreshold(double thresholdPercent, double hysteresisPercent);
}
