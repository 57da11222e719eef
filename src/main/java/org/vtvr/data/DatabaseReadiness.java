package org.vtvr.data;

import io.agroal.api.AgroalDataSource;
import io.quarkus.arc.InjectableInstance;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import io.vertx.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Readiness of both database clients, answered within {@link #BOUND} whatever the modes are doing: a JDBC connection
 * validated on a virtual thread of its own and {@code SELECT 1} on the reactive pool, each probe running at most once
 * at a time (a later check shares the one in progress), and a client that has not answered within the bound is DOWN.
 * <p>
 * It replaces the datasource checks of quarkus-agroal and the reactive client ({@code quarkus.datasource.health.enabled=false}):
 * the JDBC one is a blocking check, so SmallRye Health ran it on the worker pool, where it waited behind the worker
 * mode's queue, and it waited the whole acquisition timeout for a connection of a stalled database (docs/faults.md).
 */
@Readiness
@ApplicationScoped
public class DatabaseReadiness implements AsyncHealthCheck {

    /** The longest a readiness answer waits for the database. */
    static final Duration BOUND = Duration.ofMillis(500);

    @Inject
    InjectableInstance<AgroalDataSource> jdbc;

    @Inject
    InjectableInstance<Pool> reactive;

    private final AtomicReference<CompletableFuture<Boolean>> jdbcProbe = new AtomicReference<>();
    private final AtomicReference<CompletableFuture<Boolean>> reactiveProbe = new AtomicReference<>();

    @Override
    public Uni<HealthCheckResponse> call() {
        List<AgroalDataSource> jdbcs = jdbc.listActive();
        List<Pool> pools = reactive.listActive();
        if (jdbcs.isEmpty() && pools.isEmpty()) {   // the delay-only profile has no database
            return Uni.createFrom().item(HealthCheckResponse.named("database").up().withData("datasource", "inactive").build());
        }
        return Uni.combine().all()
                .unis(bounded(shared(jdbcProbe, () -> validate(jdbcs.getFirst()))),
                        bounded(shared(reactiveProbe, () -> select(pools.getFirst()))))
                .with((jdbcUp, reactiveUp) -> HealthCheckResponse.named("database")
                        .status(jdbcUp && reactiveUp)
                        .withData("jdbc", jdbcUp ? "UP" : "DOWN")
                        .withData("reactive", reactiveUp ? "UP" : "DOWN")
                        .withData("boundMs", BOUND.toMillis())
                        .build());
    }

    private static Uni<Boolean> bounded(CompletionStage<Boolean> probe) {
        return Uni.createFrom().completionStage(probe)
                .ifNoItem().after(BOUND).recoverWithItem(false)
                .onFailure().recoverWithItem(false);
    }

    /** The probe in progress, or a new one: a stalled database holds one connection per client, not one per check. */
    private static CompletableFuture<Boolean> shared(AtomicReference<CompletableFuture<Boolean>> running,
            Supplier<CompletableFuture<Boolean>> start) {
        while (true) {
            CompletableFuture<Boolean> current = running.get();
            if (current != null && !current.isDone()) {
                return current;
            }
            CompletableFuture<Boolean> next = new CompletableFuture<>();
            if (running.compareAndSet(current, next)) {
                start.get().whenComplete((up, failure) -> next.complete(failure == null && up));
                return next;
            }
        }
    }

    private static CompletableFuture<Boolean> validate(AgroalDataSource dataSource) {
        CompletableFuture<Boolean> up = new CompletableFuture<>();
        Thread.ofVirtual().name("readiness-jdbc").start(() -> {
            try (Connection connection = dataSource.getConnection()) {
                up.complete(connection.isValid((int) Math.max(1, BOUND.toSeconds())));
            } catch (Exception | Error e) {
                up.complete(false);
            }
        });
        return up;
    }

    private static CompletableFuture<Boolean> select(Pool pool) {
        return pool.query("SELECT 1").execute().map(rows -> true).toCompletionStage().toCompletableFuture();
    }
}
