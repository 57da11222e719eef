package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.vtvr.api.OrderRequest;
import org.vtvr.scenario.Mode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Nothing acknowledged is altered: an order the service accepts (201) reads back with the same customer and sku,
 * byte for byte in UTF-8, in every mode, whichever mode wrote it. Generated texts (seed {@code -Dhostile.seed}) mix
 * ASCII, Latin-1, CJK, combining marks, controls and supplementary characters (emoji, the last plane), up to the
 * longest the bounds allow ({@link OrderRequest#MAX_TEXT} characters, 400 bytes in utf8mb4), sent as raw UTF-8 or as JSON
 * escapes with surrogate pairs (issue 20, item 5).
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class RoundTripTest {

    static final long SEED = Long.getLong("hostile.seed", System.nanoTime());
    static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    static final int[][] RANGES = {{0x21, 0x7E}, {0xA1, 0xFF}, {0x4E00, 0x9FFF}, {0x0300, 0x036F}, {0x01, 0x1F},
            {0x1F300, 0x1F64F}, {0x10000, 0x10FFFF}, {0xE000, 0xF8FF}};

    @TestFactory
    List<DynamicTest> acceptedOrdersReadBackExactly() {
        Random random = new Random(SEED);
        List<String[]> texts = new ArrayList<>();
        texts.add(new String[] {"x".repeat(OrderRequest.MAX_TEXT), "\uD83D\uDCA5".repeat(OrderRequest.MAX_TEXT)});
        texts.add(new String[] {new String(Character.toChars(0x10FFFF)).repeat(OrderRequest.MAX_TEXT), "\u00e9".repeat(OrderRequest.MAX_TEXT)});
        for (int i = 0; i < 20; i++) {
            texts.add(new String[] {text(random), text(random)});
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            Mode writer = Mode.values()[i % 3];
            String[] pair = texts.get(i);
            boolean escaped = random.nextBoolean();
            tests.add(DynamicTest.dynamicTest("written by " + writer.path() + (escaped ? ", escaped" : ", raw UTF-8")
                    + " (seed " + SEED + "): " + pair[0].codePointCount(0, pair[0].length()) + "/"
                    + pair[1].codePointCount(0, pair[1].length()) + " characters", () -> {
                String body = "{\"customer\":" + json(pair[0], escaped) + ",\"sku\":" + json(pair[1], escaped) + ",\"quantity\":7}";
                HttpResponse<byte[]> created = CLIENT.send(HttpRequest.newBuilder(uri("/" + writer.path() + "/orders?delay=0"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body.getBytes(StandardCharsets.UTF_8))).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(201, created.statusCode(), new String(created.body(), StandardCharsets.UTF_8));
                long id = new JsonObject(new String(created.body(), StandardCharsets.UTF_8)).getLong("orderId");
                for (Mode reader : Mode.values()) {
                    HttpResponse<byte[]> read = CLIENT.send(HttpRequest.newBuilder(uri("/" + reader.path() + "/orders/" + id)).build(),
                            HttpResponse.BodyHandlers.ofByteArray());
                    assertEquals(200, read.statusCode(), reader.path());
                    JsonObject order = new JsonObject(new String(read.body(), StandardCharsets.UTF_8)).getJsonObject("order");
                    assertArrayEquals(pair[0].getBytes(StandardCharsets.UTF_8), order.getString("customer").getBytes(StandardCharsets.UTF_8),
                            "customer read by " + reader.path());
                    assertArrayEquals(pair[1].getBytes(StandardCharsets.UTF_8), order.getString("sku").getBytes(StandardCharsets.UTF_8),
                            "sku read by " + reader.path());
                    assertEquals(7, order.getInteger("quantity"));
                }
            }));
        }
        return tests;
    }

    /** 1..MAX_TEXT characters from random ranges, with at least one that is not blank (the first). */
    static String text(Random random) {
        StringBuilder text = new StringBuilder().appendCodePoint('A' + random.nextInt(26));
        int length = random.nextInt(4) == 0 ? OrderRequest.MAX_TEXT : 1 + random.nextInt(OrderRequest.MAX_TEXT);
        for (int i = 1; i < length; i++) {
            int[] range = RANGES[random.nextInt(RANGES.length)];
            text.appendCodePoint(range[0] + random.nextInt(range[1] - range[0] + 1));
        }
        return text.toString();
    }

    /** A JSON string: control characters, quote and backslash escaped; the rest raw or as \\uXXXX (surrogate pairs above the BMP). */
    static String json(String text, boolean escapeAll) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c < 0x20 || c == '"' || c == '\\' || (escapeAll && c > 0x7E)) {
                out.append(String.format("\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    static URI uri(String target) {
        return URI.create("http://127.0.0.1:" + RestAssured.port + target);
    }
}
