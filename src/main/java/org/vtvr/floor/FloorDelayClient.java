package org.vtvr.floor;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.Json;
import org.vtvr.api.DelayReply;
import org.vtvr.delay.client.DelayGateway;
import org.vtvr.delay.client.DelaySettings;
import org.vtvr.limits.Deadline;

import java.util.ArrayList;
import java.util.List;

/**
 * The floor's delay-service client: a bare Vert.x {@link HttpClient} with its own pool, the REST client's URL,
 * connect and read timeouts, pool size and protocol ({@link DelaySettings}), answering on the calling event loop; failures are
 * the modes' problems (502, 503, 504, {@link DelayGateway#classify}), but no call is timed. A plain class: the app
 * makes one for the floor and the ladder ({@link FloorRoutes#client}), the bare Vert.x process its own
 * ({@code bare.BareVertx}), so both make the same calls.
 */
public class FloorDelayClient {

    private final DelaySettings settings;
    private final String path;
    private final HttpClient http;

    public FloorDelayClient(Vertx vertx, DelaySettings settings) {
        this.settings = settings;
        path = settings.pathPrefix();
        int port = settings.url().getPort() > 0 ? settings.url().getPort() : 80;
        HttpClientOptions options = new HttpClientOptions()
                .setDefaultHost(settings.url().getHost())
                .setDefaultPort(port)
                .setConnectTimeout(settings.connectTimeoutMs());
        if (settings.http2()) {
            // h2c with prior knowledge, as the REST client (delay.client.PriorKnowledge)
            options.setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false);
        }
        http = vertx.createHttpClient(options,
                new PoolOptions().setHttp1MaxSize(settings.poolSize()).setHttp2MaxSize(settings.poolSize()));
    }

    public void close() {
        http.close();
    }

    /**
     * One {@code GET /delay/{ms}}, the reply's delay; a call still waiting at the deadline or after the read timeout
     * is reset (the delay service sees its connection end) and fails with 504, as the REST client's {@code Uni} does.
     */
    public Future<Integer> call(int ms, Deadline deadline, Open open) {
        long left = deadline.remaining().toMillis();
        if (left <= 0) {
            return Future.failedFuture(DelayGateway.timedOut(null));
        }
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setURI(path + ms)
                .setIdleTimeout(Math.min(settings.readTimeoutMs(), left))
                .putHeader(HttpHeaders.ACCEPT, "application/json");
        return http.request(options)
                .compose(request -> open.add(request).send())
                .compose(response -> response.body().map(body -> {
                    if (response.statusCode() != 200) {
                        throw new IllegalStateException("the delay service answered " + response.statusCode());
                    }
                    // mapped to the contract's record, as the REST client does
                    return Json.decodeValue(body, DelayReply.class).delay();
                }))
                .recover(failure -> Future.failedFuture(DelayGateway.classify(failure)));
    }

    /**
     * The calls one request has open, used on its event loop only: {@link #abort} resets them (a fan-out's first
     * failure, a client that hung up), and a call opened after that is reset at once.
     */
    public static final class Open {

        private final List<HttpClientRequest> requests = new ArrayList<>();
        private boolean aborted;

        HttpClientRequest add(HttpClientRequest request) {
            if (aborted) {
                request.reset();
            } else {
                requests.add(request);
            }
            return request;
        }

        public void abort() {
            aborted = true;
            requests.forEach(HttpClientRequest::reset);
        }
    }
}
