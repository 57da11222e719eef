package org.vtvr.web;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.quarkus.logging.Log;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.HttpException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.vtvr.error.Problem;
import org.vtvr.error.ProblemException;
import org.vtvr.error.ProblemType;
import org.vtvr.http.HttpLimits;

import java.util.concurrent.RejectedExecutionException;

/**
 * The failure handler of every request, first in line ({@link HttpLimits#ORDER}): a request the router failed before
 * any resource ran gets problem+json, with the {@code Allow} header of the route index ({@link AllowedMethods}) on a
 * 405. Here, not in {@code http}, because the route index knows every package's paths.
 */
@ApplicationScoped
public class RouteFailures {

    void install(@Observes Router router) {
        router.route().order(HttpLimits.ORDER).failureHandler(RouteFailures::failed);
    }

    /**
     * A request the router failed before any resource ran (no {@code Host} on HTTP/1.1, a query string that does not
     * decode), or a plain route failed with a {@link ProblemException} (the floor series): problem+json instead of
     * Quarkus' error page, which names the exception. Failures inside the REST resources never get here:
     * ProblemMappers answers them.
     */
    static void failed(RoutingContext rc) {
        if (rc.response().closed()) {
            return;   // the client hung up (org.vtvr.http.Arrival): no one to answer
        }
        if (rc.response().headWritten()) {
            rc.response().close();
            return;
        }
        if (rc.failure() instanceof ProblemException known) {
            HttpLimits.refuse(rc, known.type(), known.getMessage());
            return;
        }
        for (Throwable t = rc.failure(); t != null; t = t.getCause() == t ? null : t.getCause()) {
            // a worker-mode request the full worker pool queue refuses fails here, before its resource runs
            if (t instanceof RejectedExecutionException) {
                HttpLimits.refuse(rc, ProblemType.OVERLOADED, ProblemType.WORKER_QUEUE_FULL);
                return;
            }
        }
        int status = rc.statusCode() > 0 ? rc.statusCode()
                : rc.failure() instanceof HttpException http ? http.getStatusCode() : 500;
        if (status >= 500) {
            Log.error("request failed before reaching a resource", rc.failure());
            HttpLimits.refuse(rc, ProblemType.INTERNAL, ProblemType.UNEXPECTED);
        } else if (status == 404) {
            HttpLimits.refuse(rc, ProblemType.NOT_FOUND, ProblemType.NO_ENDPOINT);
        } else {
            String reason = HttpResponseStatus.valueOf(status).reasonPhrase();
            String allow = status == 405 ? AllowedMethods.of(rc.normalizedPath()) : null;
            if (allow != null) {
                rc.response().putHeader("Allow", allow);   // a plain route's 405 (the floor), as ProblemMappers does
            }
            HttpLimits.refuse(rc, Problem.http(status, reason, "the request is malformed or not acceptable ("
                    + status + " " + reason + ")", Problem.instance(rc.normalizedPath())));
        }
    }
}
