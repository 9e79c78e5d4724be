package org.planck.api.inband;

import org.planck.api.telemetry.PintHopLatency;
import org.planck.api.telemetry.PintPathEvent;

import java.util.List;

/**
 * Receives the PINT events of an ingested telemetry batch (telemetry-events-v3).
 */
public interface PintEventSink {

    /**
     * Applies PINT events, in batch order.
     *
     * @param collector the batch's collector
     * @param paths     PINT_PATH events
     * @param latencies PINT_HOP_LATENCY events
     */
    void accept(String collector, List<PintPathEvent> paths, List<PintHopLatency> latencies);
}
