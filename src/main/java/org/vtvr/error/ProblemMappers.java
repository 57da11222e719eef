package org.vtvr.error;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.quarkus.logging.Log;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.vtvr.delay.DelayException;
import org.vtvr.scenario.BadInputException;
import org.vtvr.scenario.NotFoundProblem;


/** Turns every failure into a problem+json response with the right status; the stack trace stays in the log. */
public class ProblemMappers {

    @ServerExceptionMapper
    public RestResponse<Problem> badInput(BadInputException e, UriInfo uri) {
        return problem(400, "bad-input", "Bad input", e.getMessage(), uri);
    }

    @ServerExceptionMapper
    public RestResponse<Problem> notFound(NotFoundProblem e, UriInfo uri) {
        return problem(404, "not-found", "Not found", e.getMessage(), uri);
    }

    @ServerExceptionMapper
    public RestResponse<Problem> delay(DelayException e, UriInfo uri) {
        Log.debugf(e.getCause(), "delay-service call failed (%d)", e.status());
        return switch (e.status()) {
            case 503 -> problem(503, "overloaded", "Overloaded", e.getMessage(), uri);
            case 504 -> problem(504, "delay-timeout", "Delay service timed out", e.getMessage(), uri);
            default -> problem(502, "delay-unavailable", "Delay service unavailable", e.getMessage(), uri);
        };
    }

    /** Overrides Quarkus' built-in mapper for this exception, which answers plain JSON or an empty body. */
    @ServerExceptionMapper
    public RestResponse<Problem> mismatchedJson(MismatchedInputException e, UriInfo uri) {
        return malformedJson(e, uri);
    }

    /** Says where the body is wrong, never how Jackson saw it: its messages name Java types and classes. */
    @ServerExceptionMapper
    public RestResponse<Problem> malformedJson(JsonProcessingException e, UriInfo uri) {
        String detail;
        if (e instanceof MismatchedInputException mismatch && !mismatch.getPath().isEmpty()) {
            String field = mismatch.getPath().stream()
                    .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                    .collect(java.util.stream.Collectors.joining("."));
            detail = "'" + clip(field) + "' has the wrong type; expected {\"customer\": text, \"sku\": text, \"quantity\": 1..1000}";
        } else if (e instanceof MismatchedInputException) {
            detail = "the body must be a JSON object {\"customer\": ..., \"sku\": ..., \"quantity\": ...}";
        } else if (String.valueOf(e.getOriginalMessage()).startsWith("Duplicate field")) {
            // StrictJson: a member named twice is refused, whatever its values
            detail = "a member name appears more than once (" + clip(e.getOriginalMessage().substring(10)) + ")";
        } else {
            var at = e.getLocation();
            detail = "malformed JSON" + (at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr());
        }
        return problem(400, "malformed-body", "Malformed request body", detail, uri);
    }

    @ServerExceptionMapper
    public RestResponse<Problem> web(WebApplicationException e, UriInfo uri) {
        int status = e.getResponse().getStatus();
        // Quarkus' JSON reader wraps a parse failure (a duplicate member name, StrictJson) in a bare 400
        if (status == 400 && e.getCause() instanceof JsonProcessingException json) {
            return malformedJson(json, uri);
        }
        if (status == 404) {
            return problem(404, "not-found", "Not found", "no endpoint at /" + uri.getPath().replaceFirst("^/", "")
                    + "; modes are virtual, worker and reactive (see /q/openapi)", uri);
        }
        Response.StatusType type = Response.Status.fromStatusCode(status);
        String title = type == null ? "HTTP " + status : type.getReasonPhrase();
        if (status >= 500) {
            Log.warn("request failed", e);
        }
        // 405 names the methods the path accepts (RFC 9110, section 15.5.6)
        String allow = status == 405 ? AllowedMethods.of(uri.getPath()) : null;
        var answer = builder(status, "http-" + status, title, clip(String.valueOf(e.getMessage())), uri);
        return (allow == null ? answer : answer.header("Allow", allow)).build();
    }

    @ServerExceptionMapper
    public RestResponse<Problem> unexpected(Throwable e, UriInfo uri) {
        // delay-service failures arrive as DelayException, so a lost connection left here is the database's
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof JsonProcessingException json) {
                return malformedJson(json, uri);
            }
            if (t instanceof java.util.concurrent.RejectedExecutionException) {
                return problem(503, "overloaded", "Overloaded",
                        "the worker pool's queue is full (quarkus.thread-pool.queue-size); retry later", uri);
            }
            if (lostConnection(t)) {
                Log.debugf("database unavailable: %s", e);
                return problem(503, "database-unavailable", "Database unavailable",
                        "the database did not answer in time or refused the connection; retry later", uri);
            }
        }
        Log.error("unexpected failure", e);
        return problem(500, "internal", "Internal error", "an unexpected failure; the server log has the details", uri);
    }

    /** A connection that could not be made, was lost, or was not handed out in time (SQLState class 08). */
    private static boolean lostConnection(Throwable t) {
        if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null) {
            return sql.getSQLState().startsWith("08") || String.valueOf(sql.getMessage()).contains("acquisition timeout");
        }
        String name = t.getClass().getSimpleName();
        // the Vert.x pool's wait limit (ReactivePoolCreator) fails with a bare NoStackTraceThrowable("Timeout")
        return String.valueOf(t.getMessage()).startsWith("Timeout") || t instanceof java.net.ConnectException
                || name.contains("Connect") || name.contains("Closed") || name.contains("Timeout")
                || String.valueOf(t.getMessage()).contains("acquisition timeout");
    }

    private static RestResponse<Problem> problem(int status, String type, String title, String detail, UriInfo uri) {
        return builder(status, type, title, detail, uri).build();
    }

    private static RestResponse.ResponseBuilder<Problem> builder(int status, String type, String title, String detail, UriInfo uri) {
        Problem body = Problem.of(status, type, title, detail, uri == null ? null : "/" + uri.getPath().replaceFirst("^/", ""));
        return RestResponse.ResponseBuilder.<Problem>create(status).entity(body).type(Problem.MEDIA_TYPE);
    }

    private static String clip(String text) {
        String firstLine = text.lines().findFirst().orElse("");
        return firstLine.length() <= 200 ? firstLine : firstLine.substring(0, 200) + "...";
    }
}
