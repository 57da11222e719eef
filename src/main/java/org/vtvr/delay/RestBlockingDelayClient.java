package org.vtvr.delay;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.rest.client.inject.RestClient;

/** The blocking method of the Quarkus REST client: Vert.x does the I/O on an event loop while the caller waits. */
@ApplicationScoped
class RestBlockingDelayClient implements BlockingDelayClient {

    @Inject
    @RestClient
    DelayClient client;

    @Override
    public int call(int ms) {
        return client.call(ms).delay();
    }
}
