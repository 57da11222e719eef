package org.vtvr.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.quarkus.logging.Log;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.json.Json;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.HttpException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.ConfigProvider;
import org.vtvr.config.BenchConfig;
import org.vtvr.error.Problem;
import org.vtvr.scenario.Mode;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * The first handler of every request, on the event loop before any body is read or any thread is dispatched: refuses
 * an oversized request target (414), declared body (413) or header block (431), the mode endpoints in the delay-only
 * profile (404), and a request to a mode that already has {@code bench.max-in-flight} requests in progress (503), all
 * as problem+json.
 * <p>
 * A request stops counting when its response has ended or its connection has closed ({@code addEndHandler} fires on
 * either), so a client that hangs up leaks no admission slot. Metrics: {@code admission_in_flight{mode}},
 * {@code admission_limit{mode}}, {@code admission_rejected_total{mode}}.
 * <p>
 * Netty refuses a request line or header block beyond {@code quarkus.http.limits.max-initial-line-length} /
 * {@code max-header-size} itself, with an empty body, before any handler runs; those are set well above the limits
 * checked here, so only a request larger than both gets the framework's bare answer.
 */
@ApplicationScoped
public class RequestGate {

    /** Before Quarkus' body handling (upload limit, body handler of Quarkus REST) and every application route. */
    static final int ORDER = RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 1;

    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,30}");

    private final Map<Mode, AtomicInteger> inFlight = new EnumMap<>(Mode.class);
    private final Map<Mode, Counter> rejected = new EnumMap<>(Mode.class);
    private BenchConfig config;
    private long maxBody;

    void install(@Observes Router router, BenchConfig config, MeterRegistry registry) {
        this.config = config;
        for (Mode mode : Mode.values()) {
            AtomicInteger count = new AtomicInteger();
            inFlight.put(mode, count);
            Gauge.builder("admission.in.flight", count, AtomicInteger::get).tag("mode", mode.path())
                    .description("requests of this mode in progress").register(registry);
            Gauge.builder("admission.limit", config, BenchConfig::maxInFlight).tag("mode", mode.path())
                    .description("bench.max-in-flight: requests of one mode in progress before 503").register(registry);
            rejected.put(mode, Counter.builder("admission.rejected").tag("mode", mode.path())
                    .description("requests refused with 503 because bench.max-in-flight were in progress").register(registry));
        }
        maxBody = ConfigProvider.getConfig().getValue("quarkus.http.limits.max-body-size", MemorySize.class).asLongValue();
        router.route().order(ORDER).handler(this::handle).failureHandler(RequestGate::failed);
    }

    /**
     * A request the router failed before any resource ran (no {@code Host} on HTTP/1.1, a query string that does not
     * decode): problem+json instead of Quarkus' error page, which names the exception. Failures inside the resources
     * never get here: ProblemMappers answers them.
     */
    private static void failed(RoutingContext rc) {
        if (rc.response().headWritten()) {
            rc.response().close();
            return;
        }
        for (Throwable t = rc.failure(); t != null; t = t.getCause() == t ? null : t.getCause()) {
            // a worker-mode request the full worker pool queue refuses fails here, before its resource runs
            if (t instanceof RejectedExecutionException) {
                refuse(rc, 503, "overloaded", "Overloaded", "the worker pool's queue is full (quarkus.thread-pool.queue-size); retry later");
                return;
            }
        }
        int status = rc.statusCode() > 0 ? rc.statusCode()
                : rc.failure() instanceof HttpException http ? http.getStatusCode() : 500;
        if (status >= 500) {
            Log.error("request failed before reaching a resource", rc.failure());
            refuse(rc, status, "internal", "Internal error", "an unexpected failure; the server log has the details");
        } else {
            HttpResponseStatus reason = HttpResponseStatus.valueOf(status);
            refuse(rc, status, status == 404 ? "not-found" : "http-" + status, reason.reasonPhrase(), status == 404
                    ? "no endpoint at this path; modes are virtual, worker and reactive (see /q/openapi)"
                    : "the request is malformed or not acceptable (" + status + " " + reason.reasonPhrase() + ")");
        }
    }

    private void handle(RoutingContext rc) {
        if (rc.request().uri().length() > config.maxUriLength()) {
            refuse(rc, 414, "uri-too-long", "URI Too Long", "the request target is longer than "
                    + config.maxUriLength() + " characters (bench.max-uri-length)");
            return;
        }
        // the upload limit Quarkus runs next answers the same with an empty body
        String length = rc.request().getHeader("Content-Length");
        if (length != null && declaresMore(length.strip(), maxBody)) {
            refuse(rc, 413, "body-too-large", "Content Too Large", "the request body is larger than " + maxBody
                    + " bytes (quarkus.http.limits.max-body-size)");
            return;
        }
        if (headerSize(rc) > config.maxHeaderSize()) {
            refuse(rc, 431, "headers-too-large", "Request Header Fields Too Large", "the request headers are larger than "
                    + config.maxHeaderSize() + " bytes (bench.max-header-size)");
            return;
        }
        Mode mode = modeOf(rc.normalizedPath());
        if (mode == null) {
            rc.next();
            return;
        }
        if (!config.serveModes()) {
            refuse(rc, 404, "not-found", "Not found", "this instance serves only /delay/{ms} (profile 'delay')");
            return;
        }
        AtomicInteger count = inFlight.get(mode);
        if (count.incrementAndGet() > config.maxInFlight()) {
            count.decrementAndGet();
            rejected.get(mode).increment();
            refuse(rc, 503, "overloaded", "Overloaded", config.maxInFlight() + " " + mode.path()
                    + " requests are in progress (bench.max-in-flight); retry later");
            return;
        }
        rc.addEndHandler(ended -> count.decrementAndGet());
        rc.next();
    }

    /** The mode whose endpoints {@code path} addresses, from its first segment; null for every other path. */
    static Mode modeOf(String path) {
        int start = path.startsWith("/") ? 1 : 0;
        int end = path.indexOf('/', start);
        String first = end < 0 ? path.substring(start) : path.substring(start, end);
        for (Mode mode : Mode.values()) {
            if (mode.path().equals(first)) {
                return mode;
            }
        }
        return null;
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

    private static void refuse(RoutingContext rc, int status, String kind, String title, String detail) {
        // the instance is the path alone, clipped: the target itself may be the oversized part
        String path = rc.normalizedPath();
        Problem problem = Problem.of(status, kind, title, detail, path.length() <= 200 ? path : path.substring(0, 200) + "...");
        var response = rc.response().setStatusCode(status).putHeader("Content-Type", Problem.MEDIA_TYPE);
        if (status == 413 || status == 414 || status == 431) {
            response.putHeader("Connection", "close");   // as Netty does: the rest of such a request is not worth reading
        }
        response.end(Json.encode(problem));
    }
}
