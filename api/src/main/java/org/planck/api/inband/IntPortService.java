package org.planck.api.inband;

import org.onosproject.net.ConnectPoint;

import java.util.Collection;
import java.util.Optional;

/**
 * The controller's INT port state: what collectors' INT_PORT signals last said about each
 * switch egress port (queue occupancy, hop latency, egress utilisation).
 */
public interface IntPortService {

    /**
     * The INT state of every port a signal reached and that has not expired.
     *
     * @return states, in no particular order
     */
    Collection<IntPortState> ports();

    /**
     * The INT state of one port.
     *
     * @param port switch egress port
     * @return its state, if any signal reached it and it has not expired
     */
    Optional<IntPortState> port(ConnectPoint port);

    /**
     * Counters of INT signal handling.
     *
     * @return a snapshot
     */
    IntCounters counters();
}
