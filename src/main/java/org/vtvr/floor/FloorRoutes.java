package org.vtvr.floor;

import io.quarkus.restclient.config.RestClientsConfig;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.vtvr.config.BenchConfig;
import org.vtvr.delay.client.DelaySettings;
import org.vtvr.limits.Limits;
import org.vtvr.scenario.Param.Keys;
import org.vtvr.scenario.Scenario;

/**
 * The floor series, {@code /floor/io} and {@code /floor/fanout}: plain Vert.x routes on the event loop serving the
 * floor's work ({@link FloorWork}: the same input rules, deadline, delay calls and answer fields as the modes, with a
 * bare Vert.x client); no REST layer, no Mutiny, no request gate, no per-call timer, the answer a Vert.x
 * {@code JsonObject} rather than the {@code Result} record. What a mode costs above it is what its framework layers
 * and its threading model add (docs/floor.md). Failures answer through {@code HttpLimits}' failure handler as the
 * same problem+json.
 */
@ApplicationScoped
public class FloorRoutes {

    /** The series' name: the first path segment and the answer's {@code mode}. */
    public static final String SERIES = "floor";

    private FloorWork work;

    void install(@Observes Router router, Limits limits, FloorDelayClient client, BenchConfig config) {
        if (!config.serveModes()) {
            return;   // the delay-only profile serves /delay alone
        }
        work = new FloorWork(SERIES, limits, client);
        for (Scenario scenario : FloorWork.SCENARIOS) {
            String path = "/" + SERIES + scenario.path();
            router.route(path).method(HttpMethod.GET).method(HttpMethod.HEAD).handler(rc -> serve(rc, scenario));
            // as for the modes' paths: 405 with Allow (HttpLimits) for other methods; OPTIONS is contract.OptionsAnswer's
            router.route(path).handler(rc -> rc.fail(405));
        }
    }

    /** The floor's and the ladder's delay client: one, with its own pool, on the app's Vert.x. */
    @Produces
    @Singleton
    static FloorDelayClient client(Vertx vertx, RestClientsConfig restClients) {
        return new FloorDelayClient(vertx, DelaySettings.of(restClients));
    }

    static void close(@Disposes FloorDelayClient client) {
        client.close();
    }

    private void serve(RoutingContext rc, Scenario scenario) {
        FloorDelayClient.Open open = openCalls(rc);
        work.serve(scenario, rc.request().getParam(Keys.DELAY), rc.request().getParam(Keys.CALLS), open)
                .onComplete(result -> {
                    if (result.failed()) {
                        rc.fail(result.cause());
                    } else {
                        rc.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                                .end(result.result().toBuffer());
                    }
                });
    }

    /** The request's open calls, reset when its client hangs up before the answer, as the modes' calls are. */
    private static FloorDelayClient.Open openCalls(RoutingContext rc) {
        FloorDelayClient.Open open = new FloorDelayClient.Open();
        rc.addEndHandler(ended -> {
            if (ended.failed()) {
                open.abort();
            }
        });
        return open;
    }
}
