package org.vtvr.api;

/** The delay service's contract, shared by the service and its clients: its path and its reply. */
public record DelayReply(int delay) {

    /** {@code GET /delay/{ms}} answers after {@code ms} milliseconds. */
    public static final String PATH = "/delay";
}
