package org.vtvr.vtnative;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.webclient.api.HttpClientResponse;
import io.helidon.webclient.api.ReleasableResource;
import io.helidon.webclient.api.WebClient;
import io.helidon.webclient.http2.Http2Client;
import io.helidon.webclient.http2.Http2ClientProtocolConfig;
import org.vtvr.api.DelayReply;
import org.vtvr.error.ProblemException;
import org.vtvr.error.ProblemType;
import org.vtvr.limits.Deadline;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

/**
 * The delay service called with Helidon's blocking {@link WebClient} on the calling virtual thread, bounded by the
 * request's deadline as the app's {@code DelayGateway} bounds it, its failures the same problems: 504 too slow (or
 * interrupted), 502 refused, dropped or an error status. Fan-out calls run on a new virtual thread each, as in the
 * virtual mode ({@code blocking.FanoutPool}). With {@code bench.delay-http2}, as the app's REST client then, the calls
 * go over cleartext HTTP/2 (Helidon's {@link Http2Client}, prior knowledge), many streams on a few connections.
 */
final class DelayCalls implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ReleasableResource client;
    /** One GET of the delay path, with the read timeout given, on HTTP/1.1 or HTTP/2. */
    private final BiFunction<String, Duration, HttpClientResponse> get;
    private final Duration readTimeout;
    private final ExecutorService fanout = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("vt-native-fanout-", 0).factory());

    DelayCalls(Settings settings) {
        readTimeout = settings.delayReadTimeout();
        String base = settings.delayUrl().resolve(DelayReply.PATH + "/").toString();
        if (settings.bench().delayHttp2()) {
            Http2Client h2 = Http2Client.builder().baseUri(base).connectTimeout(settings.delayConnectTimeout())
                    .readTimeout(readTimeout)
                    .protocolConfig(Http2ClientProtocolConfig.builder().priorKnowledge(true).build()).build();
            client = h2;
            get = (path, wait) -> h2.get(path).readTimeout(wait).request();
        } else {
            WebClient h1 = WebClient.builder().baseUri(base).connectTimeout(settings.delayConnectTimeout())
                    .readTimeout(readTimeout).connectionCacheSize(settings.delayPoolSize()).build();
            client = h1;
            get = (path, wait) -> h1.get(path).readTimeout(wait).request();
        }
    }

    /** {@code calls} calls of {@code ms} one after another. */
    void sequential(int ms, int calls, Deadline deadline) {
        for (int i = 0; i < calls; i++) {
            call(ms, deadline);
        }
    }

    /** The calls at once; the first failure fails the request and interrupts the others, which aborts them. */
    void concurrent(int ms, int calls, Deadline deadline) {
        if (calls == 0) {
            return;
        }
        CompletionService<Integer> done = new ExecutorCompletionService<>(fanout);
        List<Future<Integer>> futures = new ArrayList<>(calls);
        try {
            for (int i = 0; i < calls; i++) {
                futures.add(done.submit(() -> call(ms, deadline)));
            }
            for (int i = 0; i < calls; i++) {
                Future<Integer> next = done.poll(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS);
                if (next == null) {
                    throw timedOut(null);
                }
                next.get();
            }
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw timedOut(e);
        } finally {
            futures.forEach(f -> f.cancel(true));
        }
    }

    /** One call, at most until the deadline (and the client's read timeout); the reply's delay. */
    int call(int ms, Deadline deadline) {
        Duration left = deadline.remaining();
        if (left.isZero()) {
            throw timedOut(null);
        }
        if (Thread.currentThread().isInterrupted()) {   // a sibling call failed: no new call
            throw timedOut(new InterruptedException("interrupted before the call"));
        }
        Duration wait = left.compareTo(readTimeout) < 0 ? left : readTimeout;
        try (HttpClientResponse response = get.apply(Integer.toString(ms), wait)) {
            if (response.status().code() != 200) {
                throw new IOException("the delay service answered " + response.status().code());
            }
            return JSON.readValue(response.entity().inputStream(), DelayReply.class).delay();
        } catch (IOException | RuntimeException e) {
            throw Thread.currentThread().isInterrupted() ? timedOut(e) : classify(e);
        }
    }

    private static ProblemException timedOut(Throwable cause) {
        return ProblemType.DELAY_TIMEOUT.exception("the delay service did not answer in time", cause);
    }

    /** By type, as {@code DelayGateway.classify}: a wait that ran out is 504, anything else 502. */
    private static ProblemException classify(Throwable failure) {
        if (failure instanceof ProblemException known) {
            return known;
        }
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SocketTimeoutException || t instanceof TimeoutException
                    || t instanceof InterruptedIOException) {
                return timedOut(failure);
            }
        }
        return ProblemType.DELAY_UNAVAILABLE.exception(
                "delay service unavailable: it refused or dropped the connection", failure);
    }

    @Override
    public void close() {
        fanout.shutdownNow();
        client.closeResource();
    }
}
