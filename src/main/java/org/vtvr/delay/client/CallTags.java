package org.vtvr.delay.client;

import io.quarkus.runtime.annotations.RegisterForReflection;
import org.eclipse.microprofile.rest.client.RestClientBuilder;
import org.eclipse.microprofile.rest.client.spi.RestClientListener;
import org.jboss.resteasy.reactive.client.impl.VertxRequestCustomizingClientBuilder;

/**
 * Hands every request of the delay client, the moment it has its pooled connection and before anything is sent, to
 * {@link PooledCalls#connected}, which tells the call from its tag. A MicroProfile REST Client listener (registered in
 * {@code META-INF/services}): Quarkus calls it as it builds the client, and the request customizer it adds is the
 * Vert.x REST client's own hook.
 */
@RegisterForReflection
public class CallTags implements RestClientListener {

    @Override
    public void onNewClient(Class<?> type, RestClientBuilder builder) {
        if (type == DelayClient.class && builder instanceof VertxRequestCustomizingClientBuilder<?> vertx) {
            vertx.httpClientRequestCustomizer(PooledCalls::connected);
        }
    }
}
