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
}
