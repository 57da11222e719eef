package org.vtvr.delay;

/** A failed call to the delay service: unreachable (502) or too slow (504). */
public class DelayException extends RuntimeException {

    private final boolean timeout;

    DelayException(boolean timeout, Throwable cause) {
        super((timeout ? "delay service did not answer in time: " : "delay service unavailable: ") + describe(cause),
                cause, false, false);
        this.timeout = timeout;
    }

    public boolean isTimeout() {
        return timeout;
    }

    private static String describe(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : " (" + root.getMessage() + ")");
    }
}
