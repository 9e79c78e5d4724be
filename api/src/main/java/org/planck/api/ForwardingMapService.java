package org.planck.api;

import java.util.Optional;

/**
 * Forwarding maps of the configured collectors, kept current with the routes and pushed
 * to each collector's control endpoint.
 */
public interface ForwardingMapService {

    /**
     * The current forwarding map of a collector.
     *
     * @param collectorId collector id
     * @return the map, or empty if no such collector is configured
     */
    Optional<ForwardingMap> forwardingMap(String collectorId);

    /**
     * Push statistics of a collector.
     *
     * @param collectorId collector id
     * @return status, or empty if no such collector is configured
     */
    Optional<CollectorPushStatus> pushStatus(String collectorId);
}
