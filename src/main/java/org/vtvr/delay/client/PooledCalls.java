package org.vtvr.delay.client;

import io.quarkus.restclient.config.RestClientsConfig;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientRequest;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.vtvr.api.DelayReply;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Every mode's REST-client call of the delay service: started only when one of the pool's connections is free, and
 * when its caller gives up before it has a connection, reset the moment it gets one.
 * <p>
 * A call cancelled while it waits for a pooled connection is not sent, but Quarkus 3.33's REST client then keeps the
 * connection it gets until the read timeout (15 s) ends the unsent request and logs "The timeout period ... has been
 * exceeded" ({@code ClientSendRequestHandler}: the fix of quarkusio/quarkus#48620 skips the send but neither resets
 * nor releases it). Under overload every call waits for a connection and the clients that hang up cancel thousands:
 * on 2026-12-01 the chaos check's virtual and reactive overload rounds left every mode's io path failing for 17.6 and
 * 19.0 s after them, the app logging 2,326 such timeouts (docs/faults.md). So:
 * <ul>
 * <li>calls wait here, at most one started per pooled connection, in arrival order as in the pool's own queue; one
 * cancelled here was never handed to the client;</li>
 * <li>a started call is cancelled through the client only once it has its connection, which {@link CallTags} tells
 * from the call's tag (a query parameter, {@value #TAG}, the delay service ignores); cancelled before, it is reset
 * when the connection comes, before anything is sent.</li>
 * </ul>
 * A reactive caller goes on on its own event loop, as Hibernate Reactive requires, even when a call of another
 * request's started it. Over HTTP/2 ({@code bench.delay-http2}) a pooled connection carries many calls, so none
 * waits here.
 */
@ApplicationScoped
public class PooledCalls {

    /** The query parameter that tags a call. */
    static final String TAG = "call";

    /** Calls handed to the client and not yet ended, by tag: what {@link #connected} looks up. */
    private static final Map<Long, Waiting> SENT = new ConcurrentHashMap<>();
    private static final AtomicLong TAGS = new AtomicLong();

    @Inject
    @RestClient
    DelayClient client;

    @Inject
    RestClientsConfig restClients;

    private final Queue<Waiting> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger started = new AtomicInteger();
    private int connections;

    @PostConstruct
    void settings() {
        DelaySettings delay = DelaySettings.of(restClients);
        connections = delay.http2() ? Integer.MAX_VALUE : delay.poolSize();
    }

    /** One call of {@code ms}: its {@code Uni} waits for a free connection, then for the delay service. */
    public Uni<DelayReply> call(int ms) {
        return Uni.createFrom().emitter(emitter -> {
            // a reactive caller's event-loop context, to go on on; a blocking caller waits on a future, anywhere
            Context context = Context.isOnEventLoopThread() ? Vertx.currentContext() : null;
            Waiting call = new Waiting(ms, emitter, context);
            emitter.onTermination(call::cancel);
            queue.add(call);
            startWaiting();
        });
    }

    /** Starts waiting calls while connections are free; one cancelled while it waited gives its turn on. */
    private void startWaiting() {
        while (!queue.isEmpty()) {
            int now = started.get();
            if (now >= connections) {
                return;
            }
            if (!started.compareAndSet(now, now + 1)) {
                continue;
            }
            Waiting next = queue.poll();
            if (next == null || !next.start()) {
                started.decrementAndGet();   // its turn passes on in this loop (no recursion through ended())
            }
        }
    }

    /**
     * The client has a connection for the call tagged in {@code request}'s URI and is about to send it (a Vert.x
     * request customizer: Quarkus calls it only for a call not cancelled through it).
     */
    static void connected(HttpClientRequest request) {
        String uri = request.getURI();
        int at = uri.indexOf(TAG + "=");
        if (at < 0) {
            return;
        }
        int end = uri.indexOf('&', at);
        Waiting call = SENT.get(Long.parseLong(uri, at + TAG.length() + 1, end < 0 ? uri.length() : end, 10));
        if (call != null) {
            call.connected(request);
        }
    }

    private void ended() {
        started.decrementAndGet();
        startWaiting();
    }

    private enum State { WAITING, STARTED, CANCELLED }

    /** A call from its arrival to its end; its connection's turn is taken once. */
    private final class Waiting {
        private final int ms;
        private final UniEmitter<? super DelayReply> emitter;
        private final Context context;
        private final AtomicReference<State> state = new AtomicReference<>(State.WAITING);
        private volatile CompletableFuture<DelayReply> reply;
        private volatile HttpClientRequest request;

        Waiting(int ms, UniEmitter<? super DelayReply> emitter, Context context) {
            this.ms = ms;
            this.emitter = emitter;
            this.context = context;
        }

        /** Starts the call, on its caller's Vert.x context if it had one; false when it was cancelled first. */
        boolean start() {
            if (!state.compareAndSet(State.WAITING, State.STARTED)) {
                return false;
            }
            if (context == null || Vertx.currentContext() == context) {
                send();
            } else {   // a reactive request goes on on its own event loop (Hibernate Reactive checks it)
                context.runOnContext(ignored -> send());
            }
            return true;
        }

        private void send() {
            long tag = TAGS.incrementAndGet();
            SENT.put(tag, this);
            reply = client.callAsync(ms, tag).subscribeAsCompletionStage();
            reply.whenComplete((answer, failure) -> {
                SENT.remove(tag);
                ended();
                if (failure == null) {
                    emitter.complete(answer);
                } else {   // after a cancel or reset the emitter is done, and this is dropped
                    emitter.fail(failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure);
                }
            });
            if (state.get() == State.CANCELLED) {   // cancelled while it was being handed over
                cancelConnected();
            }
        }

        /** Its connection is there: reset before anything is sent if its caller gave up already. */
        void connected(HttpClientRequest connected) {
            request = connected;
            if (state.get() == State.CANCELLED) {
                connected.exceptionHandler(expected -> { });   // Vert.x logs a reset nobody handles as an ERROR
                connected.reset();
            }
        }

        /** The caller gave up (or the call ended): not started, it never will be; started, see above. */
        void cancel() {
            // one still waiting stays queued until its turn, which it passes on (no O(n) removal under overload)
            if (!state.compareAndSet(State.WAITING, State.CANCELLED)
                    && state.compareAndSet(State.STARTED, State.CANCELLED)) {
                cancelConnected();
            }
        }

        /** Cancels a call that has its connection (Quarkus resets it); one without waits for {@link #connected}. */
        private void cancelConnected() {
            CompletableFuture<DelayReply> call = reply;
            if (call != null && request != null && !call.isDone()) {
                call.cancel(true);
            }
        }
    }
}
