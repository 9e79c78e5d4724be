package org.planck.api.telemetry;

import org.onosproject.net.ConnectPoint;

/**
 * One event of a telemetry batch; every event names a switch port.
 */
public interface TelemetryEvent {
    /**
     * The switch port the event is about.
     *
     * @return device and port
     */
    ConnectPoint port();
}
