package org.planck.api.telemetry;

import java.util.Objects;

/**
 * What happened to the events of an accepted batch: applied, or skipped because they name a
 * device or port the controller does not know.
 */
public final class IngestResult {
    private final int accepted;
    private final int unknownDevice;
    private final int unknownPort;

    /**
     * Creates a result.
     *
     * @param accepted      events applied to flow/port state
     * @param unknownDevice events skipped: device unknown
     * @param unknownPort   events skipped: device known, port unknown
     */
    public IngestResult(int accepted, int unknownDevice, int unknownPort) {
        this.accepted = accepted;
        this.unknownDevice = unknownDevice;
        this.unknownPort = unknownPort;
    }

    public int accepted() {
        return accepted;
    }

    public int unknownDevice() {
        return unknownDevice;
    }

    public int unknownPort() {
        return unknownPort;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof IngestResult)) {
            return false;
        }
        IngestResult r = (IngestResult) o;
        return accepted == r.accepted && unknownDevice == r.unknownDevice && unknownPort == r.unknownPort;
    }

    @Override
    public int hashCode() {
        return Objects.hash(accepted, unknownDevice, unknownPort);
    }

    @Override
    public String toString() {
        return "IngestResult{accepted=" + accepted + ", unknownDevice=" + unknownDevice
                + ", unknownPort=" + unknownPort + "}";
    }
}
