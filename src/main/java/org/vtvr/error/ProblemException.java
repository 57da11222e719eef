package org.vtvr.error;

/** A failure whose answer is known where it happens: a problem type and a detail for the client, the cause for the log. */
public class ProblemException extends RuntimeException {

    private final ProblemType type;

    ProblemException(ProblemType type, String detail, Throwable cause) {
        super(detail, cause, false, false);
        this.type = type;
    }

    public ProblemType type() {
        return type;
    }
}
