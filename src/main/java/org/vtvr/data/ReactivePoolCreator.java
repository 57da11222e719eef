package org.vtvr.data;

import io.quarkus.reactive.mysql.client.MySQLPoolCreator;
import io.vertx.core.Future;
import io.vertx.mysqlclient.MySQLBuilder;
import io.vertx.mysqlclient.MySQLConnectOptions;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.vtvr.config.BenchConfig;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Builds the reactive pool as Quarkus would, plus the one setting Quarkus has no property for: how long a request
 * may wait for a pooled connection. It matches {@code quarkus.datasource.jdbc.acquisition-timeout}, so both sides
 * answer 503 after the same wait when the database is gone (Vert.x' own default is 30 s). Its connections also get
 * the JDBC side's socket timeout ({@code bench.db-socket-timeout-ms}) as an idle timeout, so a stalled database
 * fails a statement after the same time on both sides. Idle counts neither reads nor writes (Netty's all-idle), so
 * the clock starts again when a statement is sent, as JDBC's socket timeout does with each read: a read-idle timeout
 * counted from the connection's last answer, time spent idle in the pool included, and closed a pooled connection
 * in the middle of its next statement (a {@code SELECT SLEEP(1.9)} on a connection idle 2.6 s in the pool, with a
 * 3 s timeout, got 503 after 0.3 s; the contract check's random seeds met it now and then).
 */
@Singleton
public class ReactivePoolCreator implements MySQLPoolCreator {

    @Inject
    BenchConfig config;

    @Override
    public Pool create(Input input) {
        var options = input.poolOptions()
                .setConnectionTimeout((int) config.dbAcquireTimeout().toMillis())
                .setConnectionTimeoutUnit(TimeUnit.MILLISECONDS);
        List<MySQLConnectOptions> targets = input.mySQLConnectOptionsList();
        targets.forEach(target -> target.setIdleTimeout(config.dbSocketTimeoutMs())
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS));
        AtomicInteger next = new AtomicInteger();
        return MySQLBuilder.pool()
                .with(options)
                .connectingTo(() -> Future.succeededFuture(targets.get(Math.floorMod(next.getAndIncrement(), targets.size()))))
                .using(input.vertx())
                .build();
    }
}
