package org.vtvr.bare;

import io.smallrye.config.SmallRyeConfig;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import org.vtvr.delay.client.DelaySettings;
import org.vtvr.error.Problem;
import org.vtvr.error.ProblemException;
import org.vtvr.error.ProblemType;
import org.vtvr.floor.FloorDelayClient;
import org.vtvr.floor.FloorWork;
import org.vtvr.limits.Limits;
import org.vtvr.scenario.Param.Keys;
import org.vtvr.scenario.Scenario;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The bare baseline (docs/floor.md): io and fanout as the floor serves them ({@link FloorWork}: the same input rules,
 * answer and delay calls, through the floor's Vert.x {@code HttpClient}) in a process of its own with nothing around
 * them: a plain {@code main}, {@code Vertx.vertx()} and an {@code HttpServer} on every event loop; no Quarkus, no CDI,
 * no metrics. Run from the built app's class path; its settings are the app's ({@link BareConfig}), its port
 * {@code quarkus.http.port} as the app's. The load harness starts it as the series {@value #SERIES}.
 */
public final class BareVertx {

    /** The series' name: the first path segment and the answer's {@code mode}. */
    public static final String SERIES = "bare";

    private static final Map<String, Scenario> PATHS = FloorWork.SCENARIOS.stream()
            .collect(Collectors.toMap(scenario -> "/" + SERIES + scenario.path(), Function.identity()));

    private final Vertx vertx;
    private final HttpServerOptions server;
    private final FloorDelayClient client;
    private final FloorWork work;

    public BareVertx(Vertx vertx, SmallRyeConfig config) {
        this.vertx = vertx;
        // HTTP/1.1 and h2c on one port as the app's server, with its stream limit (the scale experiment raises it)
        server = new HttpServerOptions().setHttp2ClearTextEnabled(true).setInitialSettings(new Http2Settings()
                .setMaxConcurrentStreams(config.getValue("quarkus.http.limits.max-concurrent-streams", Long.class)));
        client = new FloorDelayClient(vertx, DelaySettings.of(config));
        work = new FloorWork(SERIES, Limits.of(BareConfig.bench(config)), client);
    }

    public static void main(String[] args) {
        SmallRyeConfig config = BareConfig.read(Map.of());
        String host = config.getValue("quarkus.http.host", String.class);
        int port = config.getValue("quarkus.http.port", Integer.class);
        Vertx vertx = Vertx.vertx();
        BareVertx bare = new BareVertx(vertx, config);
        bare.listen(host, port).toCompletionStage().toCompletableFuture().join();
        Runtime.getRuntime().addShutdownHook(new Thread(bare::close));
        System.out.println("Listening on: http://" + host + ":" + port);
    }

    /** Serves on HOST:PORT with one server per event loop, as Quarkus deploys its HTTP server; done when all listen. */
    public Future<String> listen(String host, int port) {
        return vertx.deployVerticle(() -> new AbstractVerticle() {
            @Override
            public void start(Promise<Void> started) {
                getVertx().createHttpServer(server).requestHandler(BareVertx.this::handle).listen(port, host)
                        .<Void>mapEmpty().onComplete(started);
            }
        }, new DeploymentOptions().setInstances(VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE));
    }

    public void close() {
        client.close();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    private void handle(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        String instance = Problem.instance(request.path());
        Scenario scenario = PATHS.get(request.path());
        if (scenario == null) {
            answer(response, ProblemType.NOT_FOUND.problem(ProblemType.NO_ENDPOINT, instance));
            return;
        }
        if (request.method() != HttpMethod.GET && request.method() != HttpMethod.HEAD) {
            response.putHeader(HttpHeaders.ALLOW, "GET, HEAD");
            answer(response, Problem.http(405, "Method Not Allowed", "this path answers GET and HEAD", instance));
            return;
        }
        // the request's open calls, reset when its client hangs up before the answer, as the floor's are
        FloorDelayClient.Open open = new FloorDelayClient.Open();
        response.closeHandler(closed -> open.abort());
        Future<JsonObject> answer;
        try {
            answer = work.serve(scenario, request.getParam(Keys.DELAY), request.getParam(Keys.CALLS), open);
        } catch (ProblemException bad) {
            answer = Future.failedFuture(bad);
        }
        answer.onComplete(result -> {
            if (result.succeeded()) {
                response.putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(result.result().toBuffer());
            } else if (result.cause() instanceof ProblemException known) {
                answer(response, known.type().problem(known.getMessage(), instance));
            } else {
                answer(response, ProblemType.INTERNAL.problem(ProblemType.UNEXPECTED, instance));
            }
        });
    }

    private static void answer(HttpServerResponse response, Problem problem) {
        if (!response.ended() && !response.closed()) {
            response.setStatusCode(problem.status()).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                    .end(Json.encodeToBuffer(problem));
        }
    }
}
