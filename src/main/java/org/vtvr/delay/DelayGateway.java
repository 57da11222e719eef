package org.vtvr.delay;

import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import java.net.SocketTimeoutException;
import java.util.concurrent.TimeoutException;

/**
 * The one place the scenarios call the delay service through: the blocking and the {@code Uni} side of
 * {@link DelayClient}, with every failure turned into a {@link DelayException} (502 or 504).
 */
@ApplicationScoped
public class DelayGateway {

    @Inject
    @RestClient
    DelayClient client;

    public int call(int ms) {
        try {
            return client.call(ms).delay();
        } catch (RuntimeException e) {
            throw classify(e);
        }
    }

    public Uni<Integer> callAsync(int ms) {
        return client.callAsync(ms)
                .map(DelayResource.Reply::delay)
                .onFailure().transform(DelayGateway::classify);
    }

    /** A wait on the delay service that gave up: 504. */
    public static DelayException timedOut(Throwable cause) {
        return new DelayException(true, cause);
    }

    static DelayException classify(Throwable failure) {
        if (failure instanceof DelayException known) {
            return known;
        }
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof TimeoutException || t instanceof SocketTimeoutException
                    || t.getClass().getSimpleName().contains("Timeout")) {
                return new DelayException(true, failure);
            }
        }
        return new DelayException(false, failure);
    }
}
