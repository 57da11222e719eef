package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.vtvr.api.OrderRequest;
import org.vtvr.config.BenchConfig;
import org.vtvr.scenario.Mode;
import org.vtvr.scenario.Scenario;

import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;

/** The series load/compare.sh samples, readiness with the database, and the API description. */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class ObservabilityTest {

    @Inject
    BenchConfig config;

    @Test
    void metricsTellModesAndScenariosApartAndShowEveryCost() {
        for (String path : new String[] {"/virtual/io?delay=1", "/reactive/io?delay=1", "/worker/db", "/reactive/db",
                "/virtual/pinning?delay=1"}) {
            given().when().get(path).then().statusCode(200);
        }
        given().when().get("/q/metrics").then().statusCode(200)
                .body(containsString("http_server_requests_seconds_count{method=\"GET\",outcome=\"SUCCESS\",status=\"200\",uri=\"/virtual/io\""))
                .body(containsString("uri=\"/reactive/db\""))
                .body(containsString("uri=\"/worker/db\""))
                .body(containsString("delay_client_calls_seconds_count{api=\"blocking\",client=\""
                        + config.blockingClient().tag() + "\",outcome=\"success\"}"))
                .body(containsString("delay_client_calls_seconds_count{api=\"uni\",client=\"rest-client\",outcome=\"success\"}"))
                .body(containsString("jvm_threads_live_threads"))
                .body(containsString("jvm_memory_used_bytes{area=\"heap\""))
                .body(containsString("jvm_threads_virtual_pinned_seconds_count"))
                .body(containsString("process_cpu_time_ns_total"))
                .body(containsString("agroal_active_count"))
                .body(containsString("agroal_awaiting_count"))
                .body(containsString("sql_pool_active"))
                .body(containsString("worker_pool_active"));
    }

    @Test
    void readinessIncludesBothDatabaseClients() {
        given().when().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItems("database"))
                .body("checks.find { it.name == 'database' }.data.jdbc", equalTo("UP"))
                .body("checks.find { it.name == 'database' }.data.reactive", equalTo("UP"));
    }

    @Test
    void openApiDescribesEveryEndpoint() {
        var spec = given().when().get("/q/openapi?format=json").then().statusCode(200);
        for (Scenario scenario : Scenario.values()) {
            for (Mode mode : scenario.modes()) {
                spec.body(containsString("\"/" + mode.path() + scenario.path() + "\""));
            }
        }
        spec.body(containsString("\"/delay/{ms}\"")).body(containsString("\"/scenarios\""));
    }

    /** The catalogue as served, for load scripts: every scenario with its modes and parameters. */
    @Test
    void scenariosEndpointListsTheCatalogue() {
        given().when().get("/scenarios").then().statusCode(200)
                .body("name", equalTo(List.of("io", "fanout", "db", "slow-query", "checkout", "order", "cpu", "pinning",
                        "workload")))
                .body("find { it.name == 'pinning' }.modes", equalTo(List.of("virtual", "worker")))
                .body("find { it.name == 'checkout' }.method", equalTo("POST"))
                .body("find { it.name == 'io' }.params.name", equalTo(List.of("delay", "calls")))
                .body("find { it.name == 'io' }.params[0].max", equalTo(config.maxDelay()))
                .body("find { it.name == 'pinning' }.params[1].choices", equalTo(List.of("synchronized", "reentrant")))
                .body("find { it.name == 'checkout' }.status", equalTo(201))
                .body("find { it.name == 'checkout' }.body", equalTo(OrderRequest.EXAMPLE))
                .body("find { it.name == 'workload' }.params.name",
                        equalTo(List.of("delay", "calls", "fanout", "queries", "cpu", "insert")))
                .body("find { it.name == 'workload' }.params.min", equalTo(List.of(0, 0, 0, 0, 0, 0)))
                .body("find { it.name == 'workload' }.params.defaultValue",
                        equalTo(List.of("100", "0", "0", "0", "0", "0")))
                .body("find { it.name == 'workload' }.params[5].max", equalTo(1))
                // what a request must fit beyond its bounds: the deadline, and the kernel's size on the event loop
                .body("find { it.name == 'workload' }.deadlineMs", equalTo((int) config.requestDeadline().toMillis()))
                .body("find { it.name == 'workload' }.params[4].maxByMode", equalTo(Map.of("reactive", config.maxNEventLoop())))
                .body("find { it.name == 'cpu' }.params[0].maxByMode.reactive", equalTo(config.maxNEventLoop()))
                .body("find { it.name == 'workload' }.params[0].maxByMode", equalTo(null))
                .body("find { it.name == 'workload' }.series.path", equalTo(List.of("/virtual/workload",
                        "/worker/workload", "/reactive/workload", "/vt-native/workload")))
                .body("find { it.name == 'db' }.series.kind", equalTo(List.of("mode", "mode", "mode", "helidon")))
                .body("find { it.name == 'io' }.status", equalTo(200))
                .body("find { it.name == 'io' }.body", equalTo(""))
                // every series that serves a scenario, the floor and the ladder's rungs (docs/floor.md) after the modes
                .body("find { it.name == 'io' }.series.name", equalTo(List.of("virtual", "worker", "reactive", "floor",
                        "bare", "vt-native", "ladder-rest", "ladder-rest-client", "ladder-gateway", "ladder-reactive", "ladder-vt",
                        "ladder-vt-rest-client", "ladder-vt-gateway", "ladder-virtual")))
                .body("find { it.name == 'io' }.series.find { it.name == 'ladder-vt' }.path", equalTo("/ladder/vt/io"))
                .body("find { it.name == 'io' }.series.find { it.name == 'ladder-vt' }.kind", equalTo("ladder"))
                .body("find { it.name == 'fanout' }.series.path", equalTo(List.of("/virtual/fanout", "/worker/fanout",
                        "/reactive/fanout", "/floor/fanout", "/bare/fanout", "/vt-native/fanout")))
                .body("find { it.name == 'fanout' }.series.kind", equalTo(List.of("mode", "mode", "mode", "floor", "bare",
                        "helidon")))
                .body("find { it.name == 'pinning' }.series.path", equalTo(List.of("/virtual/pinning", "/worker/pinning")));
    }

    /** Every series the catalogue lists answers its scenario there as it says: method, body and status. */
    @Test
    void everySeriesTheCatalogueListsServesItsScenario() {
        List<Map<String, Object>> entries = given().when().get("/scenarios").then().statusCode(200).extract().path("$");
        for (Map<String, Object> entry : entries) {
            if (entry.get("name").equals("order")) {
                continue;   // needs an order id; checkout's answer links to it (ContractTest)
            }
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> params = (List<Map<String, Object>>) entry.get("params");
            String query = params.stream().anyMatch(p -> p.get("name").equals("delay")) ? "?delay=1" : "";
            @SuppressWarnings("unchecked")
            List<Map<String, String>> series = (List<Map<String, String>>) entry.get("series");
            for (Map<String, String> s : series) {
                if (s.get("kind").equals("bare") || s.get("kind").equals("helidon")) {
                    continue;   // served by a process of its own, not by this app (BareTest, load/tests/test_vtnative.py)
                }
                var request = given();
                if (!((String) entry.get("body")).isEmpty()) {
                    request.contentType("application/json").body((String) entry.get("body"));
                }
                request.when().request((String) entry.get("method"), s.get("path") + query)
                        .then().statusCode((Integer) entry.get("status"));
            }
        }
    }
}
