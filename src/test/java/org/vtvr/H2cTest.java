package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cleartext HTTP/2 is served on the HTTP port, by prior knowledge and by Upgrade, in every mode and on the delay
 * service, with the configured stream limit advertised (quarkus.http.limits.max-concurrent-streams).
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class H2cTest {

    @Inject
    Vertx vertx;

    @ParameterizedTest
    @ValueSource(strings = {"/virtual/io?delay=0", "/worker/io?delay=0", "/reactive/io?delay=0", "/delay/0", "/virtual/io?delay=x"})
    void priorKnowledgeAndUpgradeAreServed(String target) throws Exception {
        for (boolean upgrade : new boolean[] {false, true}) {
            HttpClient client = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
                    .setHttp2ClearTextUpgrade(upgrade));
            try {
                var answer = client.request(HttpMethod.GET, RestAssured.port, "127.0.0.1", target)
                        .compose(request -> request.send().compose(response -> response.body().map(body -> new Object[] {
                                response.version(), response.statusCode(), response.getHeader("Content-Type"), body.toString(),
                                request.connection().remoteSettings().getMaxConcurrentStreams()})))
                        .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
                String what = target + (upgrade ? " (upgrade)" : " (prior knowledge)") + " -> " + answer[1] + " " + answer[3];
                assertEquals(HttpVersion.HTTP_2, answer[0], what);
                assertEquals(1000L, answer[4], what);
                if (target.endsWith("=x")) {
                    assertEquals(400, answer[1], what);
                    assertTrue(String.valueOf(answer[2]).startsWith("application/problem+json"), what);
                    assertEquals(400, new JsonObject((String) answer[3]).getInteger("status"), what);
                } else {
                    assertEquals(200, answer[1], what);
                }
            } finally {
                client.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            }
        }
    }
}
