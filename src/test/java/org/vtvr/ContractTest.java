package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The OpenAPI document against the running service: every documented bound is the one the checks apply (the value
 * just past it is refused with 400 problem, the lowest accepted), OPTIONS and 405 list exactly the documented
 * methods, and checkout is documented as 201 with Location and the link to its read-back (issue 20).
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class ContractTest {

    static final String ORDER = "{\"customer\":\"contract\",\"sku\":\"SKU-1\",\"quantity\":1}";

    static JsonObject document() {
        return new JsonObject(RestAssured.get("/q/openapi?format=json").then().statusCode(200).extract().asString());
    }

    @TestFactory
    List<DynamicTest> documentedBoundsAreTheChecksBounds() {
        List<DynamicTest> tests = new ArrayList<>();
        JsonObject paths = document().getJsonObject("paths");
        for (String path : paths.fieldNames()) {
            if (path.startsWith("/test-")) {
                continue;
            }
            for (String method : paths.getJsonObject(path).fieldNames()) {
                JsonObject operation = paths.getJsonObject(path).getJsonObject(method);
                JsonArray parameters = operation.getJsonArray("parameters", new JsonArray());
                for (int i = 0; i < parameters.size(); i++) {
                    JsonObject parameter = parameters.getJsonObject(i);
                    JsonObject schema = parameter.getJsonObject("schema");
                    if (!schema.containsKey("minimum")) {
                        continue;
                    }
                    long min = schema.getLong("minimum");
                    long max = schema.getLong("maximum");
                    String name = parameter.getString("name");
                    tests.add(DynamicTest.dynamicTest(method + " " + path + " " + name + " in " + min + ".." + max, () -> {
                        assertEquals(400, call(method, path, name, max + 1).status(), name + "=" + (max + 1));
                        assertEquals(400, call(method, path, name, min - 1).status(), name + "=" + (min - 1));
                        RawHttp.Answer lowest = call(method, path, name, min);
                        assertTrue(lowest.status() == 200 || lowest.status() == 201, name + "=" + min + ": " + lowest);
                    }));
                }
            }
        }
        assertTrue(tests.size() >= 25, "only " + tests.size() + " bounded parameters documented");
        return tests;
    }

    /** Each parameter not under test is left out (its documented default applies); the order id is one just made. */
    private static RawHttp.Answer call(String method, String path, String name, long value) throws IOException {
        String target = path.replace("{" + name + "}", String.valueOf(value));
        if (target.equals(path)) {
            target += "?" + name + "=" + value;
        }
        boolean post = method.equals("post");
        return RawHttp.send(RestAssured.port, HostileInputTest.request(method.toUpperCase(), target,
                post ? "Content-Type: application/json\r\n" : "", post ? ORDER : null), 15_000);
    }

    @Test
    void optionsAnd405ListExactlyTheDocumentedMethods() throws IOException {
        JsonObject paths = document().getJsonObject("paths");
        for (String path : paths.fieldNames()) {
            if (path.startsWith("/test-")) {
                continue;   // the tests' own resources (SlowDelayFront)
            }
            Set<String> documented = paths.getJsonObject(path).fieldNames().stream().map(String::toUpperCase)
                    .collect(Collectors.toCollection(TreeSet::new));
            if (documented.contains("GET")) {
                documented.add("HEAD");
            }
            documented.add("OPTIONS");
            String target = path.replace("{id}", "1").replace("{ms}", "0");
            RawHttp.Answer options = RawHttp.send(RestAssured.port, HostileInputTest.request("OPTIONS", target, "", null), 2000);
            assertEquals(204, options.status(), "OPTIONS " + target);
            assertEquals(documented, methods(options.headers().get("allow")), "OPTIONS " + target);
            String other = documented.contains("POST") ? "PUT" : "POST";
            RawHttp.Answer refused = RawHttp.send(RestAssured.port, HostileInputTest.request(other, target,
                    "Content-Type: application/json\r\n", ORDER), 2000);
            assertEquals(405, refused.status(), other + " " + target);
            assertEquals(documented, methods(refused.headers().get("allow")), other + " " + target);
        }
    }

    private static Set<String> methods(String allow) {
        assertNotNull(allow, "no Allow header");
        return Arrays.stream(allow.split(",")).map(String::strip).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void checkoutIsDocumentedAs201WithLocationAndItsReadBack() {
        JsonObject paths = document().getJsonObject("paths");
        for (String mode : List.of("virtual", "worker", "reactive")) {
            JsonObject responses = paths.getJsonObject("/" + mode + "/orders").getJsonObject("post").getJsonObject("responses");
            assertTrue(!responses.containsKey("200"), mode);
            JsonObject created = responses.getJsonObject("201");
            assertNotNull(created.getJsonObject("headers").getJsonObject("Location"), mode);
            JsonObject link = created.getJsonObject("links").getJsonObject("order");
            assertEquals(mode + "-order", link.getString("operationId"));
            assertEquals("$response.body#/orderId", link.getJsonObject("parameters").getString("id"));
            for (String status : List.of("400", "413", "415", "503", "504")) {
                assertNotNull(responses.getJsonObject(status).getJsonObject("content").getJsonObject("application/problem+json"),
                        mode + " " + status);
            }
        }
    }
}
