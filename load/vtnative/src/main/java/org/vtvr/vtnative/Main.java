package org.vtvr.vtnative;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.common.uri.UriQuery;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.vtvr.error.Problem;
import org.vtvr.error.ProblemException;
import org.vtvr.error.ProblemType;
import org.vtvr.scenario.Scenario;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The series {@value #SERIES} (issue #43, docs/floor.md): io, fanout, db and workload as the app's virtual mode serves
 * them, in a process of its own on Helidon SE's web server, which runs every request on a virtual thread of its own
 * from the socket up: no event loop to hand off to. A plain {@code main}; its settings are the app's
 * ({@link Settings}), its port {@code quarkus.http.port}. The load harness starts it beside the apps.
 */
public final class Main {

    /** The series' name: the first path segment, the answer's {@code mode} and the {@code mode} of its order rows. */
    public static final String SERIES = "vt-native";

    private static final Logger LOG = Logger.getLogger(Main.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The content type of the app's answers (Quarkus REST names the charset). */
    private static final String JSON_TYPE = "application/json;charset=UTF-8";
    private static final Map<String, Scenario> PATHS = Scenarios.SERVED.stream()
            .collect(Collectors.toMap(scenario -> "/" + SERIES + scenario.path(), Function.identity()));

    /** The content type of {@link Metrics#PATH} (Prometheus' text format). */
    private static final String METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final Scenarios scenarios;
    private final int maxInFlight;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Metrics metrics = new Metrics(inFlight);

    Main(Scenarios scenarios, int maxInFlight) {
        this.scenarios = scenarios;
        this.maxInFlight = maxInFlight;
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.read(Map.of());
        DelayCalls delay = new DelayCalls(settings);
        Store store = new Store(settings);
        Main main = new Main(new Scenarios(SERIES, new Inputs(settings.bench()), delay, store),
                settings.bench().maxInFlight());
        WebServer server = WebServer.builder().host(settings.host()).port(settings.port())
                .routing(routing -> routing.any(main::handle)).build().start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop();
            delay.close();
            store.close();
        }));
        System.out.println("Listening on: http://" + settings.host() + ":" + server.port());
    }

    private void handle(ServerRequest request, ServerResponse response) throws IOException {
        long start = System.nanoTime();
        String instance = Problem.instance(request.path().path());
        Scenario scenario = PATHS.get(request.path().path());
        if (scenario == null && Metrics.PATH.equals(request.path().path())
                && request.prologue().method() == Method.GET) {
            response.header(HeaderNames.CONTENT_TYPE, METRICS_TYPE).send(metrics.scrape());
            return;
        }
        if (scenario == null) {
            problem(response, ProblemType.NOT_FOUND.problem(ProblemType.NO_ENDPOINT, instance));
            return;
        }
        Method method = request.prologue().method();
        if (method != Method.GET && method != Method.HEAD) {
            response.header(HeaderNames.ALLOW, "GET, HEAD");
            problem(response, Problem.http(405, "Method Not Allowed", "this path answers GET and HEAD", instance));
            return;
        }
        // bench.max-in-flight, as the app's http.Admission holds each mode to it
        if (inFlight.incrementAndGet() > maxInFlight) {
            inFlight.decrementAndGet();
            problem(response, ProblemType.OVERLOADED.problem(maxInFlight + " " + SERIES
                    + " requests are in progress (bench.max-in-flight); retry later", instance));
            return;
        }
        try {
            UriQuery query = request.query();
            refuseEmpty(query, instance);
            byte[] body = JSON.writeValueAsBytes(scenarios.serve(scenario,
                    name -> query.contains(name) ? query.get(name) : null, start));
            response.header(HeaderNames.CONTENT_TYPE, JSON_TYPE).send(body);
        } catch (ProblemException known) {
            problem(response, known.type().problem(known.getMessage(), instance));
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "unexpected failure", e);
            problem(response, ProblemType.INTERNAL.problem(ProblemType.UNEXPECTED, instance));
        } finally {
            inFlight.decrementAndGet();
        }
    }

    /**
     * A parameter given with an empty value ({@code ?delay=}) is refused, as the app's
     * {@code contract.EmptyParameterAnswer} refuses it, its path unclipped there too.
     */
    private static void refuseEmpty(UriQuery query, String instance) {
        for (String name : query.names()) {
            List<String> values = query.all(name, List::of);   // ?delay without '=' has none
            if (!name.isEmpty() && (values.isEmpty() || values.contains(""))) {
                String shown = name.length() <= 40 ? name : name.substring(0, 40) + "...";
                throw ProblemType.BAD_INPUT.exception("parameter '" + shown
                        + "' has an empty value; leave it out to get its default");
            }
        }
    }

    private static void problem(ServerResponse response, Problem problem) throws IOException {
        response.status(problem.status()).header(HeaderNames.CONTENT_TYPE, Problem.MEDIA_TYPE)
                .send(JSON.writeValueAsBytes(problem));
    }
}
