package org.planck.api.config;

import java.util.Locale;
import java.util.Optional;

/**
 * Which telemetry may declare a port congested for traffic engineering (netcfg
 * {@code congestionSignal}): mirror samples (collector notices and the controller's load view),
 * INT queue occupancy, or either of them.
 */
public enum CongestionSignal {
    /** Mirror samples only: collector PORT_CONGESTION notices and the flow-rate load view. */
    MIRRORS,
    /** INT queue occupancy only (INT_PORT QUEUE_OCCUPANCY signals against intQueueThreshold). */
    INT,
    /** Either source. */
    BOTH;

    /**
     * Whether mirror-derived congestion counts.
     *
     * @return true for MIRRORS and BOTH
     */
    public boolean usesMirrors() {
        return this != INT;
    }

    /**
     * Whether INT queue congestion counts.
     *
     * @return true for INT and BOTH
     */
    public boolean usesInt() {
        return this != MIRRORS;
    }

    /**
     * The value as written in the network config.
     *
     * @return "mirrors", "int" or "both"
     */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a network-config value.
     *
     * @param text "mirrors", "int" or "both" (exactly, lower case)
     * @return the signal, or empty if the text is none of them
     */
    public static Optional<CongestionSignal> fromConfig(String text) {
        for (CongestionSignal s : values()) {
            if (s.configName().equals(text)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
