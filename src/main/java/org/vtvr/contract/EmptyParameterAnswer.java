package org.vtvr.contract;

import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.json.Json;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.vtvr.error.Problem;
import org.vtvr.error.ProblemType;

import java.util.Map;

/**
 * Refuses (400 problem) a query parameter given with an empty value ({@code ?delay=}): Quarkus REST hands the
 * endpoint its default then, so the request was served as if the parameter were absent, while the OpenAPI document
 * (and any client reading it) says an empty value is no number. Absent parameters still take their defaults
 * (Limits reads an empty value as absent, the way Quarkus REST hands it over).
 */
@ApplicationScoped
public class EmptyParameterAnswer {

    void install(@Observes Router router) {
        router.route().order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT + 1).handler(this::check);
    }

    private void check(RoutingContext rc) {
        if (rc.request().query() != null && !rc.normalizedPath().startsWith("/q/")) {
            for (Map.Entry<String, String> parameter : rc.queryParams()) {
                if (parameter.getValue().isEmpty() && !parameter.getKey().isEmpty()) {
                    String name = parameter.getKey().length() <= 40 ? parameter.getKey() : parameter.getKey().substring(0, 40) + "...";
                    rc.response().setStatusCode(400).putHeader("Content-Type", Problem.MEDIA_TYPE)
                            .end(Json.encode(ProblemType.BAD_INPUT.problem("parameter '" + name
                                    + "' has an empty value; leave it out to get its default", rc.normalizedPath())));
                    return;
                }
            }
        }
        rc.next();
    }
}
