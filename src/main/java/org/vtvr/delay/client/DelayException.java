package org.vtvr.delay.client;

/** A failed call to the delay service, with the status the caller gets: 502 unreachable, 503 overloaded, 504 too slow. */
public class DelayException extends RuntimeException {

    private final int status;

    DelayException(int status, Throwable cause) {
        // the detail names no host, port or exception class: the client sees what happened, the log sees the cause
        super(switch (status) {
            case 503 -> "the app is overloaded: no thread or connection left for the delay-service call";
            case 504 -> "the delay service did not answer in time";
            default -> "delay service unavailable: it refused or dropped the connection";
        }, cause, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
