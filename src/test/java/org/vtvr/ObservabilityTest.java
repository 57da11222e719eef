package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.vtvr.config.BenchConfig;
import org.vtvr.scenario.Mode;
import org.vtvr.scenario.Scenario;

import java.util.List;

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
                .body("checks.name", hasItems("Database connections health check",
                        "Reactive MySQL connections health check"));
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
                .body("name", equalTo(List.of("io", "fanout", "db", "slow-query", "checkout", "order", "cpu", "pinning")))
                .body("find { it.name == 'pinning' }.modes", equalTo(List.of("virtual", "worker")))
                .body("find { it.name == 'checkout' }.method", equalTo("POST"))
                .body("find { it.name == 'io' }.params.name", equalTo(List.of("delay", "calls")))
                .body("find { it.name == 'io' }.params[0].max", equalTo(config.maxDelay()))
                .body("find { it.name == 'pinning' }.params[1].choices", equalTo(List.of("synchronized", "reentrant")));
    }
}
