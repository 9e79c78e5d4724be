package org.planck.api.config;

import com.fasterxml.jackson.databind.JsonNode;
import org.onosproject.event.ListenerService;

import java.util.Optional;

/**
 * Holds the Planck configuration in force. An invalid configuration, whether it arrives
 * through ONOS netcfg or through {@link #apply(JsonNode)}, is rejected and the previous
 * valid configuration stays in force.
 */
public interface PlanckConfigService extends ListenerService<PlanckConfigEvent, PlanckConfigListener> {

    /**
     * The configuration in force.
     *
     * @return settings, or empty if none is configured
     */
    Optional<PlanckSettings> settings();

    /**
     * Validates a configuration and, if valid, puts it in force (stored in ONOS netcfg so
     * every cluster member applies it).
     *
     * @param json the configuration object
     * @return the settings now in force
     * @throws InvalidConfigException if the configuration is invalid; nothing changes then
     */
    PlanckSettings apply(JsonNode json);

    /**
     * Removes the configuration; Planck removes its rules and mirrors.
     *
     * @return true if a configuration was in force
     */
    boolean remove();

    /**
     * Why the most recent rejected configuration was rejected.
     *
     * @return the reason, or empty if nothing has been rejected since activation
     */
    Optional<String> lastRejection();
}
