package org.planck.api.te;

import java.util.Locale;
import java.util.Optional;

/**
 * How flows are placed, as in the Planck paper's comparison: the same application with traffic
 * engineering off, driven by polled port counters, or driven by collector telemetry.
 */
public enum TeMode {
    /** TE off: every flow follows its host pair's hash (ECMP-like) default path. */
    STATIC,
    /** Every N ms read port delta statistics from the devices and relieve ports over threshold. */
    POLL,
    /** React to collector congestion notices and to the app's own port-load view crossing the threshold. */
    PLANCK;

    /**
     * Parses a mode name, case-insensitively.
     *
     * @param name mode name
     * @return the mode, or empty if the name is not a mode
     */
    public static Optional<TeMode> parse(String name) {
        if (name == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(valueOf(name.trim().toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
