package org.planck.api.telemetry;

import java.io.InputStream;

/**
 * Applies collector telemetry to the controller's flow and port state.
 */
public interface TelemetryIngestService {

    /**
     * Decodes, validates and applies a telemetry-events-v1 JSON batch. A malformed batch is
     * counted as rejected and changes nothing.
     *
     * @param json the request body
     * @return how many events were applied and how many named unknown devices or ports
     * @throws MalformedBatchException if the body is not a valid v1 batch
     */
    IngestResult ingest(InputStream json) throws MalformedBatchException;

    /**
     * Applies an already validated batch.
     *
     * @param batch the batch
     * @return how many events were applied and how many named unknown devices or ports
     */
    IngestResult ingest(TelemetryBatch batch);

    /**
     * Counters of everything ingested since activation.
     *
     * @return a consistent-enough snapshot (each counter is read atomically)
     */
    IngestCounters counters();
}
