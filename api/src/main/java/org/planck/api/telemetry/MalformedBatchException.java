package org.planck.api.telemetry;

/**
 * A telemetry batch that does not follow telemetry-events-v1; the message says why.
 */
public class MalformedBatchException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param reason what is wrong, naming the offending field
     */
    public MalformedBatchException(String reason) {
        super(reason);
    }
}
