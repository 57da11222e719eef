package org.vtvr.error;

/**
 * The catalogue of problems this service answers with: each type's status, {@code urn:vtvr:problem:} name and title,
 * defined once for the request gate, the exception mappers and the delay gateway. Statuses with no entry answer as
 * {@code http-<status>} ({@link Problem#http}).
 */
public enum ProblemType {
    BAD_INPUT(400, "bad-input", "Bad input"),
    MALFORMED_BODY(400, "malformed-body", "Malformed request body"),
    NOT_FOUND(404, "not-found", "Not found"),
    BODY_TOO_LARGE(413, "body-too-large", "Content Too Large"),
    URI_TOO_LONG(414, "uri-too-long", "URI Too Long"),
    HEADERS_TOO_LARGE(431, "headers-too-large", "Request Header Fields Too Large"),
    INTERNAL(500, "internal", "Internal error"),
    DELAY_UNAVAILABLE(502, "delay-unavailable", "Delay service unavailable"),
    OVERLOADED(503, "overloaded", "Overloaded"),
    DATABASE_UNAVAILABLE(503, "database-unavailable", "Database unavailable"),
    DELAY_TIMEOUT(504, "delay-timeout", "Delay service timed out"),
    DEADLINE(504, "deadline", "Request deadline passed");

    /** The detail of every 404 for a path no endpoint has. */
    public static final String NO_ENDPOINT = "no endpoint at this path; modes are virtual, worker and reactive (see /q/openapi)";
    /** The detail of a worker-mode request the full worker pool queue refused. */
    public static final String WORKER_QUEUE_FULL = "the worker pool's queue is full (quarkus.thread-pool.queue-size); retry later";
    /** The detail of every 500: the log has the cause, the client never sees it. */
    public static final String UNEXPECTED = "an unexpected failure; the server log has the details";

    private final int status;
    private final String kind;
    private final String title;

    ProblemType(int status, String kind, String title) {
        this.status = status;
        this.kind = kind;
        this.title = title;
    }

    public int status() {
        return status;
    }

    public Problem problem(String detail, String instance) {
        return new Problem(Problem.TYPE_PREFIX + kind, title, status, detail, instance);
    }

    /** The exception that answers with this problem, wherever it is thrown. */
    public ProblemException exception(String detail) {
        return new ProblemException(this, detail, null);
    }

    public ProblemException exception(String detail, Throwable cause) {
        return new ProblemException(this, detail, cause);
    }
}
