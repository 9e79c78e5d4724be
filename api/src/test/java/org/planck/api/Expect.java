package org.planck.api;

/**
 * Exception assertions (JUnit 4.12 has no assertThrows).
 */
public final class Expect {
    private Expect() {
    }

    /** A block of code that may throw. */
    public interface Block {
        void run() throws Throwable;
    }

    /**
     * Runs a block that must throw.
     *
     * @param type exception type expected
     * @param block code to run
     * @param <T> exception type
     * @return the exception thrown
     */
    public static <T extends Throwable> T thrown(Class<T> type, Block block) {
        try {
            block.run();
        } catch (Throwable t) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
            throw new AssertionError("expected " + type.getSimpleName() + " but got " + t, t);
        }
        throw new AssertionError("expected " + type.getSimpleName() + " but nothing was thrown");
    }
}
