package org.vtvr.http;

import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * Runs a {@link Served} endpoint on the thread Quarkus picked for it, bound to its request's {@link Arrival} from the
 * first line to the last (a finally). A request the event loop already answered (its deadline passed in the worker
 * queue) or whose client hung up before it started is not served: {@link Gone} ends it with no work done.
 */
@Served
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE)
public class ServedInterceptor {

    @Inject
    CurrentVertxRequest request;

    @AroundInvoke
    Object serve(InvocationContext invocation) throws Exception {
        Arrival arrival = request.getCurrent() == null ? null : request.getCurrent().get(Arrival.KEY);
        if (arrival == null) {
            return invocation.proceed();
        }
        if (!arrival.begin()) {
            throw new Gone();
        }
        try {
            return invocation.proceed();
        } finally {
            arrival.end();
        }
    }

    /** A request that was answered (504 at its deadline) or abandoned before a thread took it: nothing to write. */
    public static final class Gone extends RuntimeException {
        Gone() {
            super("the request was answered or abandoned before a thread could serve it", null, false, false);
        }
    }
}
