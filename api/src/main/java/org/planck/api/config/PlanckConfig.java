package org.planck.api.config;

import org.onosproject.core.ApplicationId;
import org.onosproject.net.config.Config;

import java.util.Optional;

/**
 * Planck's network configuration, under the application subject with key {@value #KEY}.
 * See docs/config.md for the fields.
 */
public class PlanckConfig extends Config<ApplicationId> {

    /** The netcfg key: {@code apps/<app name>/planck}. */
    public static final String KEY = "planck";

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

    @Override
    public boolean isValid() {
        return invalidReason().isEmpty();
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
