package org.planck.api.config;

import org.onosproject.core.ApplicationId;
import org.onosproject.net.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;

/**
 * Planck's network configuration, under the application subject with key {@value #KEY}.
 * See docs/config.md for the fields.
 */
public class PlanckConfig extends Config<ApplicationId> {

    /** The netcfg key: {@code apps/<app name>/planck}. */
    public static final String KEY = "planck";

    private static final Logger LOG = LoggerFactory.getLogger(PlanckConfig.class);

    /**
     * Says why this configuration is invalid.
     *
     * @return the reason, or empty if the configuration is valid
     */
    public Optional<String> invalidReason() {
        try {
            PlanckSettings.parse(node);
            return Optional.empty();
        } catch (InvalidConfigException e) {
            return Optional.of(e.getMessage());
        }
    }

    /**
     * Validates the configuration. ONOS's netcfg store calls this and refuses invalid
     * configurations with a generic message, so the reason is logged here.
     *
     * @return true if valid
     */
    @Override
    public boolean isValid() {
        Optional<String> reason = invalidReason();
        reason.ifPresent(r -> LOG.warn("Invalid Planck configuration for {}: {}", subject, r));
        return reason.isEmpty();
    }

    /**
     * Parses the configuration.
     *
     * @return the validated settings
     * @throws InvalidConfigException if the configuration is invalid
     */
    public PlanckSettings settings() {
        return PlanckSettings.parse(node);
    }
}
