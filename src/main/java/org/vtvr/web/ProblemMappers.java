package org.vtvr.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.quarkus.logging.Log;
import io.netty.handler.codec.DecoderException;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.impl.NoStackTraceThrowable;
import io.vertx.mysqlclient.MySQLException;
import io.vertx.sqlclient.ClosedConnectionException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.vtvr.api.OrderRequest;
import org.vtvr.error.Problem;
import org.vtvr.error.ProblemException;
import org.vtvr.error.ProblemType;
import org.vtvr.http.ServedInterceptor;

import java.net.ConnectException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import java.sql.SQLException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/** Turns every failure into a problem+json response with the right status; the stack trace stays in the log. */
public class ProblemMappers {

    /** The SQLState of a statement ended by {@code KILL QUERY} (MySQL error 1317, "query execution was interrupted"). */
    private static final String CANCELLED = "70100";

    @ServerExceptionMapper
    public RestResponse<Problem> known(ProblemException e, UriInfo uri) {
        if (e.getCause() != null) {
            Log.debugf(e.getCause(), "%s: %s", e.type(), e.getMessage());
        }
        return answer(e.type().problem(e.getMessage(), instance(uri)));
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
                    .collect(Collectors.joining("."));
            detail = "'" + clip(field) + "' has the wrong type; expected " + OrderRequest.SHAPE;
        } else if (e instanceof MismatchedInputException) {
            detail = "the body must be a JSON object " + OrderRequest.SHAPE;
        } else if (String.valueOf(e.getOriginalMessage()).startsWith("Duplicate field")) {
            // StrictJson: a member named twice is refused, whatever its values
            detail = "a member name appears more than once (" + clip(e.getOriginalMessage().substring(10)) + ")";
        } else {
            var at = e.getLocation();
            detail = "malformed JSON" + (at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr());
        }
        return answer(ProblemType.MALFORMED_BODY.problem(detail, instance(uri)));
    }

    @ServerExceptionMapper
    public RestResponse<Problem> web(WebApplicationException e, UriInfo uri) {
        int status = e.getResponse().getStatus();
        // Quarkus' JSON reader wraps a parse failure (a duplicate member name, StrictJson) in a bare 400
        if (status == 400 && e.getCause() instanceof JsonProcessingException json) {
            return malformedJson(json, uri);
        }
        if (status == 404) {
            return answer(ProblemType.NOT_FOUND.problem(ProblemType.NO_ENDPOINT, instance(uri)));
        }
        Response.StatusType type = Response.Status.fromStatusCode(status);
        String title = type == null ? "HTTP " + status : type.getReasonPhrase();
        if (status >= 500) {
            Log.warn("request failed", e);
        }
        var answer = builder(Problem.http(status, title, clip(String.valueOf(e.getMessage())), instance(uri)));
        // 405 names the methods the path accepts (RFC 9110, section 15.5.6)
        String allow = status == 405 ? AllowedMethods.of(uri.getPath()) : null;
        return (allow == null ? answer : answer.header("Allow", allow)).build();
    }

    /**
     * A request the event loop answered at its deadline while it waited in the worker queue, or whose client left
     * before a thread took it (ServedInterceptor): its response is over, so nothing of this reaches a client.
     */
    @ServerExceptionMapper
    public RestResponse<Problem> gone(ServedInterceptor.Gone e, UriInfo uri) {
        return answer(ProblemType.DEADLINE.problem(e.getMessage(), instance(uri)));
    }

    @ServerExceptionMapper
    public RestResponse<Problem> unexpected(Throwable e, UriInfo uri) {
        // delay-service failures arrive as ProblemException, so a lost connection left here is the database's
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && CANCELLED.equals(sql.getSQLState())) {
                Log.debugf("statement cancelled: %s", e);   // the client hung up (org.vtvr.http.Arrival)
                return answer(ProblemType.DATABASE_UNAVAILABLE.problem("the statement was cancelled", instance(uri)));
            }
            if (t instanceof JsonProcessingException json) {
                return malformedJson(json, uri);
            }
            if (t instanceof RejectedExecutionException) {
                return answer(ProblemType.OVERLOADED.problem(ProblemType.WORKER_QUEUE_FULL, instance(uri)));
            }
            if (databaseUnavailable(t)) {
                Log.debugf("database unavailable: %s", e);
                return answer(ProblemType.DATABASE_UNAVAILABLE.problem(
                        "the database did not answer in time or refused the connection; retry later", instance(uri)));
            }
            if (t instanceof DecoderException || t instanceof NumberFormatException || t instanceof HttpClosedException
                    || t instanceof ClosedChannelException || t instanceof SocketException) {
                // the body's chunks were malformed (HttpLimits answered 400 already) or the client left mid-body; the
                // database's failures were matched above, the delay service's arrive as ProblemException
                Log.debugf("request body unreadable: %s", e);
                return answer(ProblemType.MALFORMED_BODY.problem("the request body could not be read", instance(uri)));
            }
        }
        Log.error("unexpected failure", e);
        return answer(ProblemType.INTERNAL.problem(ProblemType.UNEXPECTED, instance(uri)));
    }

    /**
     * No answer from the database, decided by type and SQL state: a JDBC failure of SQLState class 08 (connection) or
     * with no state at all (Agroal's acquisition timeout: the server, which always sends one, never saw the
     * statement), a reactive one of class 08, a connection the Vert.x client lost or could not open, or the Vert.x
     * pool's own wait limit ({@code ReactivePoolCreator}), which fails with a bare {@link NoStackTraceThrowable}.
     */
    static boolean databaseUnavailable(Throwable t) {
        if (t instanceof SQLException sql) {
            return sql.getSQLState() == null || sql.getSQLState().startsWith("08");
        }
        if (t instanceof MySQLException mysql) {
            return mysql.getSqlState() != null && mysql.getSqlState().startsWith("08");
        }
        return t instanceof ClosedConnectionException || t instanceof ConnectException
                || t instanceof NoStackTraceThrowable || t instanceof TimeoutException;
    }

    private static String instance(UriInfo uri) {
        return uri == null ? null : Problem.instance(uri.getPath());
    }

    private static RestResponse<Problem> answer(Problem problem) {
        return builder(problem).build();
    }

    private static RestResponse.ResponseBuilder<Problem> builder(Problem problem) {
        return RestResponse.ResponseBuilder.<Problem>create(problem.status()).entity(problem).type(Problem.MEDIA_TYPE);
    }

    private static String clip(String text) {
        String firstLine = text.lines().findFirst().orElse("");
        return firstLine.length() <= 200 ? firstLine : firstLine.substring(0, 200) + "...";
    }
}
