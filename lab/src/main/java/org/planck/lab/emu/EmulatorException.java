package org.planck.lab.emu;

/**
 * The emulator refused a request (its {@code {"code","message"}} error) or could not be reached.
 */
public class EmulatorException extends RuntimeException {
    private final int status;

    /**
     * An error answer.
     *
     * @param status  HTTP status, or 0 if the emulator could not be reached
     * @param message reason
     */
    public EmulatorException(int status, String message) {
        super(message);
        this.status = status;
    }

    /**
     * A transport failure.
     *
     * @param message reason
     * @param cause   cause
     */
    public EmulatorException(String message, Throwable cause) {
        super(message, cause);
        this.status = 0;
    }

    /**
     * HTTP status of the refusal, 0 for transport failures.
     *
     * @return status
     */
    public int status() {
        return status;
    }
}
