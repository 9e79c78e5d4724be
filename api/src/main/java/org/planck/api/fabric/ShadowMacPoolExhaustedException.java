package org.planck.api.fabric;

/**
 * Thrown when a shadow MAC is needed but every MAC of the pool is allocated.
 */
public class ShadowMacPoolExhaustedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message which allocation failed and the pool size
     */
    public ShadowMacPoolExhaustedException(String message) {
        super(message);
    }
}
