package org.planck.app.routing.algo;

/**
 * Exception assertions (JUnit 4.12 has no assertThrows).
 */
final class Expect {
    private Expect() {
    }

    /** A block of code that may throw. */
    interface Block {
        void run() throws Throwable;
    }

    static <T extends Throwable> T thrown(Class<T> type, Block block) {
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
