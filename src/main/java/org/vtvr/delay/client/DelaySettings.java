package org.vtvr.delay.client;

import io.quarkus.restclient.config.RestClientsConfig;

import java.net.URI;
import java.util.OptionalInt;

/**
 * The delay service's address and limits as {@code quarkus.rest-client.delay.*} sets them for the REST client, read
 * once here so every other client of the service (the socket client, the floor's Vert.x client) calls the same URL
 * with the same timeouts and pool size; {@code http2} ({@code bench.delay-http2}) is for the clients that can speak it.
 */
public record DelaySettings(URI url, int connectTimeoutMs, int readTimeoutMs, int poolSize, boolean http2) {

    public static DelaySettings of(RestClientsConfig restClients) {
        RestClientsConfig.RestClientConfig delay = restClients.getClient(DelayClient.class);
        URI url = URI.create(delay.url().or(delay::uri).orElseThrow(
                () -> new IllegalStateException("quarkus.rest-client.delay.url is not set")));
        return new DelaySettings(url,
                Math.toIntExact(delay.connectTimeout().orElse(restClients.connectTimeout())),
                Math.toIntExact(delay.readTimeout().orElse(restClients.readTimeout())),
                poolSize(delay.connectionPoolSize(), restClients.connectionPoolSize()),
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
