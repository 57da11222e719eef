package org.vtvr.contract;

import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.vtvr.web.AllowedMethods;

/**
 * Answers {@code OPTIONS} on every endpoint path with 204 and the same {@code Allow} as its 405 answers and the
 * OpenAPI document: Quarkus REST's own answer lists every method of the resource class ({@code OPTIONS /reactive/cpu}
 * advertised POST). Runs after HttpLimits and Admission, so size limits and admission hold for OPTIONS too.
 */
@ApplicationScoped
public class OptionsAnswer {

    void install(@Observes Router router) {
        router.route().method(HttpMethod.OPTIONS).order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT + 1).handler(rc -> {
            String allow = AllowedMethods.of(rc.normalizedPath());
            if (allow == null) {
                rc.next();
                return;
            }
            rc.response().setStatusCode(204).putHeader("Allow", allow).end();
        });
    }
}
