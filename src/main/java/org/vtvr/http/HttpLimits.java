package org.vtvr.http;

import io.netty.handler.codec.DecoderException;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.Json;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.ConfigProvider;
import org.vtvr.config.BenchConfig;
import org.vtvr.error.Problem;
import org.vtvr.error.ProblemType;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The first handler of every request, on the event loop before any body is read or any thread is dispatched: refuses
 * an oversized request target (414), declared body (413) or header block (431) as problem+json. {@link Admission}
 * runs next; a request the router fails before any resource ran is answered by {@code web.RouteFailures}.
 * <p>
 * Netty refuses a request line or header block beyond {@code quarkus.http.limits.max-initial-line-length} /
 * {@code max-header-size} itself, with an empty body, before any handler runs; those are set well above the limits
 * checked here, so only a request larger than both gets the framework's bare answer.
 */
@ApplicationScoped
public class HttpLimits {

    /** Before Quarkus' body handling (upload limit, body handler of Quarkus REST) and every application route. */
    public static final int ORDER = RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 2;

    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,30}");

    private BenchConfig config;
    private long maxBody;

    void install(@Observes Router router, BenchConfig config) {
        this.config = config;
        maxBody = ConfigProvider.getConfig().getValue("quarkus.http.limits.max-body-size", MemorySize.class).asLongValue();
        router.route().order(ORDER).handler(this::handle);
    }

    private void handle(RoutingContext rc) {
        if (rc.request().uri().length() > config.maxUriLength()) {
            refuse(rc, ProblemType.URI_TOO_LONG, "the request target is longer than " + config.maxUriLength()
                    + " characters (bench.max-uri-length)");
            return;
        }
        // the upload limit Quarkus runs next answers the same with an empty body
        String length = rc.request().getHeader("Content-Length");
        if (length != null && declaresMore(length.strip(), maxBody)) {
            refuse(rc, ProblemType.BODY_TOO_LARGE, "the request body is larger than " + maxBody
                    + " bytes (quarkus.http.limits.max-body-size)");
            return;
        }
        if (headerSize(rc) > config.maxHeaderSize()) {
            refuse(rc, ProblemType.HEADERS_TOO_LARGE, "the request headers are larger than " + config.maxHeaderSize()
                    + " bytes (bench.max-header-size)");
            return;
        }
        if (rc.request().version() != HttpVersion.HTTP_2 && rc.request().headers().getAll("Transfer-Encoding").stream()
                .anyMatch(coding -> coding.toLowerCase(Locale.ROOT).contains("chunked"))) {
            answerMalformedChunks(rc);
        }
        rc.next();
    }

    /**
     * A chunked body whose framing Netty's decoder cannot read (a size line that is no hex number: a
     * {@link NumberFormatException}) fails the HTTP/1.1 connection after its headers were accepted, and Vert.x closes
     * it at once; it tells the connection's exception handler first, which answers 400 problem here while the response has not started (the close follows the
     * answer). Only chunked requests register it, and the next request on the connection replaces it.
     */
    private static void answerMalformedChunks(RoutingContext rc) {
        HttpConnection connection = rc.request().connection();
        connection.exceptionHandler(failure -> {
            if (!(failure instanceof DecoderException || failure instanceof IllegalArgumentException)) {
                return;
            }
            if (!rc.response().headWritten() && !rc.response().closed()) {
                rc.response().putHeader("Connection", "close");
                refuse(rc, ProblemType.MALFORMED_BODY, "the chunked request body is malformed: each chunk must start"
                        + " with its size in hex digits on a line of its own");
            }
            // Vert.x holds what is written while it reads (this answer, or one given before the body, e.g. a 405)
            // until the read is over, and closes the connection first: out now
            if (connection instanceof ConnectionBase base) {
                base.flush();
            }
        });
    }

    /** A Content-Length of digits only above {@code most}; anything else is left to Quarkus' own checks. */
    static boolean declaresMore(String length, long most) {
        return DIGITS.matcher(length).matches() && (length.length() > 18 || Long.parseLong(length) > most);
    }

    private static int headerSize(RoutingContext rc) {
        int size = 0;
        for (Map.Entry<String, String> header : rc.request().headers()) {
            size += header.getKey().length() + header.getValue().length() + 4;   // ": " and CRLF
        }
        return size;
    }

    /** Answers {@code type}'s problem with {@code detail} now, on the event loop. */
    public static void refuse(RoutingContext rc, ProblemType type, String detail) {
        refuse(rc, type.problem(detail, Problem.instance(rc.normalizedPath())));
    }

    /** Answers {@code problem} now, on the event loop. */
    public static void refuse(RoutingContext rc, Problem problem) {
        var response = rc.response().setStatusCode(problem.status()).putHeader("Content-Type", Problem.MEDIA_TYPE);
        if (problem.status() == 413 || problem.status() == 414 || problem.status() == 431) {
            response.putHeader("Connection", "close");   // as Netty does: the rest of such a request is not worth reading
        }
        response.end(Json.encode(problem));
    }
}
