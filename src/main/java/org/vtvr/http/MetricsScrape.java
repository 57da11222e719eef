package org.vtvr.http;

import io.quarkus.micrometer.runtime.export.handlers.PrometheusHandler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.vtvr.error.ProblemType;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * {@code /q/metrics} off the worker pool. Quarkus serves the Prometheus scrape as a blocking route, a task on the
 * worker pool that the worker mode fills: while that pool and its queue were full, the scrape was refused with 503
 * (WorkerBoundTest), so a monitor lost the app exactly when it was overloaded, and the harness its in-flight and pool
 * readings of the worker mode (docs/scale.md). This route comes first on the same paths and runs Quarkus' own handler
 * (the same formats and content negotiation) on one platform thread of its own, which no mode uses; a few scrapes wait
 * for it, more are refused (503). One answer differs: {@code Accept: application/openmetrics-text} alone now gets
 * that format (Quarkus' route answered 406). With the management interface on, the scrape is on its own port and
 * router, and left to Quarkus.
 */
@ApplicationScoped
public class MetricsScrape {

    /** Scrapes waiting for the thread before the next is refused: a monitor and the harness, with room to spare. */
    static final int QUEUE = 8;

    private final ThreadPoolExecutor thread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(QUEUE), task -> {
                Thread t = new Thread(task, "metrics-scrape");
                t.setDaemon(true);
                return t;
            });

    void install(@Observes Router router,
            @ConfigProperty(name = "quarkus.management.enabled", defaultValue = "false") boolean management,
            @ConfigProperty(name = "quarkus.http.non-application-root-path", defaultValue = "q") String nonApplicationRoot,
            @ConfigProperty(name = "quarkus.micrometer.export.prometheus.path", defaultValue = "metrics") String metricsPath,
            @ConfigProperty(name = "quarkus.http.enable-compression", defaultValue = "false") boolean compression,
            @ConfigProperty(name = "quarkus.http.compress-media-types") Optional<List<String>> compressed) {
        if (management) {
            return;
        }
        PrometheusHandler scrape = new PrometheusHandler(compression, compressed);
        String path = path(nonApplicationRoot, metricsPath);
        for (String route : List.of(path, path + "/*")) {   // as Quarkus' routes: the path and what lies below it
            // after HttpLimits and Admission, before the router Quarkus mounts its /q routes on
            router.route(route).order(HttpLimits.ORDER + 2).handler(rc -> submit(rc, scrape));
        }
    }

    /** The scrape's path as Quarkus resolves it: an absolute metrics path stands alone, else under the /q root. */
    static String path(String nonApplicationRoot, String metricsPath) {
        if (metricsPath.startsWith("/")) {
            return metricsPath;
        }
        String root = nonApplicationRoot.startsWith("/") ? nonApplicationRoot : "/" + nonApplicationRoot;
        return (root.endsWith("/") ? root : root + "/") + metricsPath;
    }

    private void submit(RoutingContext rc, PrometheusHandler scrape) {
        try {
            thread.execute(() -> scrape.handle(rc));
        } catch (RejectedExecutionException e) {
            HttpLimits.refuse(rc, ProblemType.OVERLOADED, QUEUE + " scrapes are waiting for the last one; retry later");
        }
    }

    @PreDestroy
    void stop() {
        thread.shutdownNow();
    }
}
