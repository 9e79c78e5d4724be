package org.planck.lab.emu;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The emulator's {@code GET /v1/status}: clock mode, how far it lags real time, and loss counters.
 */
public final class FabricStatus {
    private final String mode;
    private final long timeUs;
    private final long lagUs;
    private final long maxLagUs;
    private final long unmatched;
    private final long mirrorFrames;
    private final long mirrorDrops;
    /** The INT stage's counters ({@code int}), missing when the fabric runs no INT. */
    private JsonNode intStage = com.fasterxml.jackson.databind.node.MissingNode.getInstance();

    /**
     * A status.
     *
     * @param mode         clock mode ("realtime" or "virtual")
     * @param timeUs       emulator time
     * @param lagUs        current lag behind real time
     * @param maxLagUs     largest lag so far
     * @param unmatched    packets no rule matched
     * @param mirrorFrames frames written by mirror ports
     * @param mirrorDrops  packets mirror ports dropped
     */
    public FabricStatus(String mode, long timeUs, long lagUs, long maxLagUs, long unmatched,
                        long mirrorFrames, long mirrorDrops) {
        this.mode = mode;
        this.timeUs = timeUs;
        this.lagUs = lagUs;
        this.maxLagUs = maxLagUs;
        this.unmatched = unmatched;
        this.mirrorFrames = mirrorFrames;
        this.mirrorDrops = mirrorDrops;
    }

    /**
     * Reads a status answer.
     *
     * @param json body
     * @return status
     */
    public static FabricStatus parse(JsonNode json) {
        if (json == null || json.path("version").asInt(-1) != 1) {
            throw new IllegalArgumentException("status must be a version-1 object");
        }
        FabricStatus s = new FabricStatus(json.path("mode").asText(""), json.path("timeUs").asLong(),
                                json.path("lagUs").asLong(), json.path("maxLagUs").asLong(),
                                json.path("unmatched").asLong(), json.path("mirrorFrames").asLong(),
                                json.path("mirrorDrops").asLong());
        s.intStage = json.path("int");
        return s;
    }

    /**
     * The INT stage's counters (docs/emulator-fabric.md): sampled, reports, reportsDropped, ...
     *
     * @return the object, or a missing node when the fabric runs no INT
     */
    public JsonNode intStage() {
        return intStage;
    }

    public String mode() {
        return mode;
    }

    public long timeUs() {
        return timeUs;
    }

    public long lagUs() {
        return lagUs;
    }

    public long maxLagUs() {
        return maxLagUs;
    }

    public long unmatched() {
        return unmatched;
    }

    public long mirrorFrames() {
        return mirrorFrames;
    }

    public long mirrorDrops() {
        return mirrorDrops;
    }
}
