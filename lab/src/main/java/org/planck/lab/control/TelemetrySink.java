package org.planck.lab.control;

import org.planck.api.telemetry.IngestResult;
import org.planck.api.telemetry.TelemetryBatch;

/**
 * Receives validated telemetry batches.
 */
public interface TelemetrySink {
    /**
     * Applies a whole, valid batch.
     *
     * @param batch     decoded batch
     * @param receiptUs receipt time, µs since the epoch
     * @return how many events were accepted and how many named unknown devices or ports
     */
    IngestResult ingest(TelemetryBatch batch, long receiptUs);

    /**
     * Called by the thread that ingested a batch, outside the sink's lock and before its source
     * is answered: the controller hands its rule batch to the fabric here, in the deciding
     * thread, without the wake-up of a hand-over to another thread.
     */
    default void afterIngest() {
    }
}
