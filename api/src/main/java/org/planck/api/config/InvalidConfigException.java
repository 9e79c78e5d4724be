package org.planck.api.config;

/**
 * Raised when a Planck configuration is rejected; the message says what is wrong and where.
 */
public class InvalidConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param reason what is wrong, naming the offending field
     */
    public InvalidConfigException(String reason) {
        super(reason);
    }
}
