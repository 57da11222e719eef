package org.vtvr.delay.client;

import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.core.util.RecyclerPool;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.logging.Log;
import io.quarkus.restclient.config.RestClientsConfig;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.HttpResponseException;
import org.apache.hc.client5.http.SchemePortResolver;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.IdleConnectionEvictor;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.DefaultHttpClientConnectionOperator;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.io.HttpClientConnectionOperator;
import org.apache.hc.client5.http.ssl.TlsSocketStrategy;
import org.apache.hc.core5.http.HttpHeaders;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.HttpStatus;
import org.apache.hc.core5.http.URIScheme;
import org.apache.hc.core5.http.config.RegistryBuilder;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.vtvr.api.DelayReply;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * The delay service over Apache HttpClient 5 classic: the calling thread writes the request and blocks reading the
 * reply on a pooled connection's own socket, with no event loop in between ({@code bench.blocking-client=socket}).
 * <p>
 * It reads the REST client's settings ({@link DelaySettings}), so both clients call the same service with the same
 * limits; HTTP/1.1 only, whatever {@code bench.delay-http2} says (it logs so). Its pool holds at most
 * {@code connection-pool-size} connections and closes one unused for {@code connection-ttl}, as the REST client's does
 * (before, every connection a burst opened stayed: 19,977 open files after 25,000 requests in flight, docs/scale.md);
 * {@code delay_socket_client_connections{state}} counts them (leased, available).
 */
@ApplicationScoped
public class SocketDelayClient implements BlockingDelayClient {

    @Inject
    RestClientsConfig restClients;

    @Inject
    ObjectMapper mapper;

    @Inject
    MeterRegistry registry;

    /** Jackson's buffers this client keeps for parsing replies: more than parse at once on a few cores. */
    static final int JSON_BUFFERS = 64;

    private ObjectReader replies;
    private CloseableHttpClient http;
    private PoolingHttpClientConnectionManager pool;
    private IdleConnectionEvictor evictor;
    private HttpHost host;
    private String path;
    private Timeout read;

    @PostConstruct
    void open() {
        DelaySettings delay = DelaySettings.of(restClients);
        host = HttpHost.create(delay.url());
        path = delay.pathPrefix();
        Timeout connect = Timeout.ofMilliseconds(delay.connectTimeoutMs());
        read = Timeout.ofMilliseconds(delay.readTimeoutMs());
        int poolSize = delay.poolSize();
        if (delay.http2()) {
            Log.info("the socket client calls the delay service over HTTP/1.1: bench.delay-http2 applies to the REST"
                    + " client and the floor's client only");
        }

        pool = new InterruptibleSockets()
                .setMaxConnTotal(poolSize)
                .setMaxConnPerRoute(poolSize)
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(connect)
                        .setSocketTimeout(read)
                        .build())
                .build();
        Gauge.builder("delay.socket.client.connections", pool, p -> p.getTotalStats().getLeased()).tag("state", "leased")
                .description("socket client connections carrying a call").register(registry);
        Gauge.builder("delay.socket.client.connections", pool, p -> p.getTotalStats().getAvailable()).tag("state", "available")
                .description("socket client connections open and unused in its pool").register(registry);
        // a daemon thread closes connections unused for connection-ttl, looking every tenth of it, so a burst's
        // connections are gone within 1.1 x connection-ttl (the builder's own evictor looks once per connection-ttl)
        evictor = new IdleConnectionEvictor(pool, TimeValue.ofMilliseconds(Math.max(10, delay.idleTimeoutMs() / 10)),
                TimeValue.ofMilliseconds(delay.idleTimeoutMs()));
        evictor.start();
        // a reply is parsed from the socket's stream, so a virtual thread can park mid-parse holding its buffers,
        // and the app's ObjectMapper keeps every buffer a virtual thread gives back (Vert.x's HybridJacksonPool has no
        // bound): after 25,000 replies it still held 10 MiB of them (docs/scale.md, "The heap's ceiling"). This
        // client's replies take theirs from a bounded pool; the app's own JSON keeps Quarkus' default pool
        // (changing it would change every mode's request path, which is what is compared)
        ObjectMapper own = mapper.copy();
        RecyclerPool<BufferRecycler> buffers = JsonRecyclerPools.newBoundedPool(JSON_BUFFERS);
        own.getFactory().setRecyclerPool(buffers);
        replies = own.readerFor(DelayReply.class);
        Gauge.builder("delay.socket.client.json.buffers", buffers, b -> b.pooledCount())
                .description("Jackson buffers the socket client keeps for parsing replies (at most " + JSON_BUFFERS + ")")
                .register(registry);
        http = HttpClients.custom()
                .setConnectionManager(pool)
                // a call waits for a free pooled connection no longer than for an answer; past that: 503
                .setDefaultRequestConfig(RequestConfig.custom().setConnectionRequestTimeout(read).build())
                .setRetryStrategy(new RetryOnlyStaleConnections())
                // what the REST client does not do either: no redirects, cookies, compression, auth or user agent;
                // this also keeps the exec chain short and reads no version resource (native image)
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableContentCompression()
                .disableAuthCaching()
                .disableConnectionState()
                .disableDefaultUserAgent()
                .build();
    }

    @PreDestroy
    void close() {
        evictor.shutdown();
        http.close(CloseMode.IMMEDIATE);
    }

    @Override
    public int call(int ms, Duration timeout) throws IOException {
        HttpGet get = new HttpGet(path + ms);
        get.setHeader(HttpHeaders.ACCEPT, "application/json");
        // the request's deadline shortens the waits for a pooled connection and for the answer, never lengthens them
        if (timeout.toMillis() < read.toMilliseconds()) {
            Timeout left = Timeout.ofMilliseconds(Math.max(1, timeout.toMillis()));
            get.setConfig(RequestConfig.custom().setConnectionRequestTimeout(left).setResponseTimeout(left).build());
        }
        return http.execute(host, get, response -> {
            if (response.getCode() != HttpStatus.SC_OK) {
                throw new HttpResponseException(response.getCode(), response.getReasonPhrase());
            }
            return replies.<DelayReply>readValue(response.getEntity().getContent()).delay();
        });
    }

    /**
     * Pooled connections over socket channels: an interrupt closes a channel's socket, so a call blocked in a read
     * ends at once on a platform thread too (a plain {@code Socket} only does that for a virtual thread).
     */
    private static final class InterruptibleSockets extends PoolingHttpClientConnectionManagerBuilder {

        @Override
        protected HttpClientConnectionOperator createConnectionOperator(SchemePortResolver ports, DnsResolver dns,
                TlsSocketStrategy tls) {
            return new DefaultHttpClientConnectionOperator(proxy -> SocketChannel.open().socket(), ports, dns,
                    RegistryBuilder.<TlsSocketStrategy>create().register(URIScheme.HTTPS.id, tls).build());
        }
    }

    /**
     * The library's default (one retry of an idempotent request on an I/O error, e.g. a kept-alive connection the
     * server had closed) minus what the REST client does not do: retrying after an HTTP status, or after an interrupt.
     */
    private static final class RetryOnlyStaleConnections extends DefaultHttpRequestRetryStrategy {

        RetryOnlyStaleConnections() {
            super(1, TimeValue.ZERO_MILLISECONDS);
        }

        @Override
        public boolean retryRequest(HttpRequest request, IOException exception, int execCount, HttpContext context) {
            return !Thread.currentThread().isInterrupted() && super.retryRequest(request, exception, execCount, context);
        }

        @Override
        public boolean retryRequest(HttpResponse response, int execCount, HttpContext context) {
            return false;
        }
    }
}
