package org.vtvr.delay.client;

import io.quarkus.restclient.config.RestClientsConfig;

import java.net.URI;
import java.util.OptionalInt;

/**
 * The delay service's address and limits as {@code quarkus.rest-client.delay.*} sets them for the REST client, read
 * once here so every other client of the service (the socket client, the floor's Vert.x client) calls the same URL
 * with the same timeouts, pool size and idle time of a pooled connection ({@code connection-ttl}; unset, the
 * REST client's Vert.x default of 60 s); {@code http2} ({@code bench.delay-http2}) is for the clients that can speak it.
 */
public record DelaySettings(URI url, int connectTimeoutMs, int readTimeoutMs, int poolSize, int idleTimeoutMs,
        boolean http2) {

    /** Vert.x' keep-alive timeout, which the REST client keeps when {@code connection-ttl} is not set. */
    static final int DEFAULT_IDLE_TIMEOUT_MS = 60_000;


    public static DelaySettings of(RestClientsConfig restClients) {
        RestClientsConfig.RestClientConfig delay = restClients.getClient(DelayClient.class);
        URI url = URI.create(delay.url().or(delay::uri).orElseThrow(
                () -> new IllegalStateException("quarkus.rest-client.delay.url is not set")));
        return new DelaySettings(url,
                Math.toIntExact(delay.connectTimeout().orElse(restClients.connectTimeout())),
                Math.toIntExact(delay.readTimeout().orElse(restClients.readTimeout())),
                poolSize(delay.connectionPoolSize(), restClients.connectionPoolSize()),
                delay.connectionTTL().orElse(restClients.connectionTTL().orElse(DEFAULT_IDLE_TIMEOUT_MS)),
                delay.http2().orElse(restClients.http2()));
    }

    /** The path a call of {@code ms} goes to, below the URL's own path ({@code /delay/} when it has none). */
    public String pathPrefix() {
        return url.getRawPath() == null ? "/delay/" : url.getRawPath().replaceAll("/+$", "") + "/delay/";
    }

    private static int poolSize(OptionalInt client, OptionalInt all) {
        if (client.isPresent()) {
            return client.getAsInt();
        }
        return all.orElseThrow(() -> new IllegalStateException("quarkus.rest-client.delay.connection-pool-size is not set"));
    }
}
