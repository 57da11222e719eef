package org.vtvr.delay.client;

import io.quarkus.restclient.config.RestClientsConfig;
import org.eclipse.microprofile.config.Config;

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

    /**
     * The same from the configuration keys themselves, for a process without Quarkus' REST client (the bare Vert.x
     * baseline, {@code bare.BareVertx}): the {@code quarkus.rest-client.delay.*} keys, each required, as
     * application.properties sets them all; {@code http2} unset or unresolved is false. BareTest holds it equal to
     * {@link #of(RestClientsConfig)}.
     */
    public static DelaySettings of(Config config) {
        String prefix = "quarkus.rest-client.delay.";
        return new DelaySettings(URI.create(config.getValue(prefix + "url", String.class)),
                config.getValue(prefix + "connect-timeout", Integer.class),
                config.getValue(prefix + "read-timeout", Integer.class),
                config.getValue(prefix + "connection-pool-size", Integer.class),
                config.getOptionalValue(prefix + "connection-ttl", Integer.class).orElse(DEFAULT_IDLE_TIMEOUT_MS),
                config.getOptionalValue(prefix + "http2", Boolean.class).orElse(false));
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
