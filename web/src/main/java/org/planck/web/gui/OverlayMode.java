package org.planck.web.gui;

import java.util.Locale;
import java.util.Optional;

/** What the overlay draws; one button (and key) each in the topology view. */
public enum OverlayMode {
    /** Every link coloured and labelled by the utilisation of its busier direction. */
    LOAD,
    /** Only congested links, plus the congestion notices as they arrive. */
    CONGESTION,
    /** The selected host's k shadow paths, the one its flows are on, and its last reroutes. */
    PATHS;

    /** Name used in the websocket messages. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a mode sent by the browser.
     *
     * @param s wire name, e.g. "load"
     * @return the mode, or empty if unknown
     */
    public static Optional<OverlayMode> fromWire(String s) {
        for (OverlayMode m : values()) {
            if (m.wireName().equals(s)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }
}
