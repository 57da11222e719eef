package org.vtvr.delay.client;

import io.vertx.core.http.HttpClientOptions;
import jakarta.ws.rs.ext.ContextResolver;

import java.util.concurrent.TimeUnit;

/**
 * The REST client's Vert.x options where they differ from the defaults: when it speaks HTTP/2
 * ({@code bench.delay-http2}) to a cleartext URL, it opens with HTTP/2 frames at once (prior knowledge) rather than an
 * HTTP/1.1 request asking to upgrade, as the floor's client and Vegeta's {@code -h2c} do. HTTP/1.1 is unaffected.
 * These options are only the base: the REST client's {@code ClientImpl} (Quarkus 3.30.6) then sets the connect timeout
 * and both pool sizes (HTTP/1.1 and HTTP/2) from {@code quarkus.rest-client.delay.*}, so the configured values hold.
 * <p>
 * A connection silent for {@link #IDLE_TIMEOUT_S} is closed. No real call is silent that long (the read timeout is
 * 15 s, the request deadline 20 s); a connection that is, holds a request the REST client never sent nor released:
 * a call cancelled before its connection was acquired (a hang-up or a failed sibling at the very start of a call) is
 * dropped by Quarkus 3.33's {@code ClientSendRequestHandler} without resetting the request it then gets, which keeps
 * its pooled connection (the fix of quarkusio/quarkus#48620 stops the send, not the leak; docs/faults.md).
 */
public class PriorKnowledge implements ContextResolver<HttpClientOptions> {

    /** Longer than any wait a call may have; see above. */
    static final int IDLE_TIMEOUT_S = 60;

    @Override
    public HttpClientOptions getContext(Class<?> type) {
        return type == HttpClientOptions.class
                ? new HttpClientOptions().setHttp2ClearTextUpgrade(false).setIdleTimeout(IDLE_TIMEOUT_S)
                        .setIdleTimeoutUnit(TimeUnit.SECONDS)
                : null;
    }
}
