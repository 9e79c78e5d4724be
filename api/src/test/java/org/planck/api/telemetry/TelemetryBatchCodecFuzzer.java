package org.planck.api.telemetry;

/**
 * Jazzer fuzz target of the telemetry codec (run by src/test/system/codec-fuzz.sh): any input
 * must either be rejected with a reason or decode to a batch that re-encodes to itself. Any
 * other exception is a finding.
 */
public final class TelemetryBatchCodecFuzzer {
    private static final TelemetryBatchCodec CODEC = new TelemetryBatchCodec();

    private TelemetryBatchCodecFuzzer() {
    }

    /**
     * Fuzzer entry point.
     *
     * @param data arbitrary bytes as a request body
     */
    public static void fuzzerTestOneInput(byte[] data) {
        TelemetryBatch batch;
        try {
            batch = CODEC.decode(data);
        } catch (MalformedBatchException e) {
            if (e.getMessage() == null || e.getMessage().isEmpty()) {
                throw new IllegalStateException("rejection without a reason");
            }
            return;
        }
        TelemetryBatch again;
        try {
            again = CODEC.decode(CODEC.encodeBytes(batch));
        } catch (MalformedBatchException e) {
            throw new IllegalStateException("decoded batch does not re-decode: " + e.getMessage(), e);
        }
        if (!batch.equals(again)) {
            throw new IllegalStateException("round trip changed the batch: " + batch + " vs " + again);
        }
    }
}
