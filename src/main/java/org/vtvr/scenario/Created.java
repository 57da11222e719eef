package org.vtvr.scenario;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.resteasy.reactive.RestResponse;
import org.vtvr.api.Result;

/**
 * The 201 answer to a new order, whose {@code Location} is a path on this service built from configuration
 * ({@code quarkus.http.root-path}) and the mode: never from the request's {@code Host} header, which any client can
 * set. A relative reference is a valid {@code Location} (RFC 9110, section 10.2.2).
 */
public final class Created {

    private static final String ROOT = ConfigProvider.getConfig().getOptionalValue("quarkus.http.root-path", String.class)
            .map(root -> root.endsWith("/") ? root : root + "/").orElse("/");

    private Created() {
    }

    public static RestResponse<Result> order(Result result) {
        // a header, not ResponseBuilder.location(): that one resolves a relative URI against the request's host
        return RestResponse.ResponseBuilder.<Result>create(RestResponse.Status.CREATED)
                .header("Location", ROOT + result.mode() + Scenario.Paths.CHECKOUT + "/" + result.outcome().orderId())
                .entity(result).build();
    }
}
