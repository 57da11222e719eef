package org.vtvr.delay;

/** A failed call to the delay service, with the status the caller gets: 502 unreachable, 503 overloaded, 504 too slow. */
public class DelayException extends RuntimeException {

    private final int status;

    DelayException(int status, Throwable cause) {
        super(switch (status) {
            case 503 -> "the app is overloaded, no thread or connection left for the delay-service call: ";
            case 504 -> "delay service did not answer in time: ";
            default -> "delay service unavailable: ";
        } + describe(cause), cause, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }

    private static String describe(Throwable cause) {
        if (cause == null) {
            return "gave up waiting";
        }
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : " (" + root.getMessage() + ")");
    }
}
