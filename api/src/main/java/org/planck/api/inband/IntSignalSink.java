package org.planck.api.inband;

import org.planck.api.telemetry.IntPortSignal;

import java.util.List;

/**
 * Receives the INT_PORT signals of an ingested telemetry batch whose device and port exist
 * (telemetry ingestion validates them, as for every other event).
 */
public interface IntSignalSink {

    /**
     * Applies signals, in batch order.
     *
     * @param collector     the batch's collector
     * @param signals       the signals
     * @param receivedNanos {@link System#nanoTime()} when the batch was received
     */
    void accept(String collector, List<IntPortSignal> signals, long receivedNanos);
}
