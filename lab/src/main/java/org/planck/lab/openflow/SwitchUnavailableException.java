package org.planck.lab.openflow;

/** A request to a switch that is not connected, or whose connection closed before it answered. */
public final class SwitchUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SwitchUnavailableException(String message) {
        super(message);
    }
}
