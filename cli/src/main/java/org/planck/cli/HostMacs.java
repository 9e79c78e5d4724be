package org.planck.cli;

import org.onlab.packet.MacAddress;

import java.util.Optional;

/**
 * Parses host MACs given on the command line.
 */
final class HostMacs {
    private HostMacs() {
    }

    /**
     * Parses a MAC written with ':' or '-' separators.
     *
     * @param text argument
     * @return the MAC, or empty if malformed
     */
    static Optional<MacAddress> parse(String text) {
        if (text == null || !text.matches("([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}")) {
            return Optional.empty();
        }
        return Optional.of(MacAddress.valueOf(text.replace('-', ':')));
    }
}
