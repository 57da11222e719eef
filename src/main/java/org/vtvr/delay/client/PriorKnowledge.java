package org.vtvr.delay.client;

import io.vertx.core.http.HttpClientOptions;
import jakarta.ws.rs.ext.ContextResolver;

/**
 * The REST client's Vert.x options where they differ from the defaults: when it speaks HTTP/2
 * ({@code bench.delay-http2}) to a cleartext URL, it opens with HTTP/2 frames at once (prior knowledge) rather than an
 * HTTP/1.1 request asking to upgrade, as the floor's client and Vegeta's {@code -h2c} do. HTTP/1.1 is unaffected.
 * These options are only the base: the REST client's {@code ClientImpl} (Quarkus 3.30.6) then sets the connect timeout
 * and both pool sizes (HTTP/1.1 and HTTP/2) from {@code quarkus.rest-client.delay.*}, so the configured values hold.
 */
public class PriorKnowledge implements ContextResolver<HttpClientOptions> {

    @Override
    public HttpClientOptions getContext(Class<?> type) {
        return type == HttpClientOptions.class ? new HttpClientOptions().setHttp2ClearTextUpgrade(false) : null;
    }
}
