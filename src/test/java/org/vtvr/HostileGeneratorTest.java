package org.vtvr;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.vtvr.scenario.Mode;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Generated hostile JSON bodies and headers, beyond HostileInputTest's fixed lists: a seeded generator per class
 * (seed {@code -Dhostile.seed}, printed in each test's name so a failure can be replayed), every mode and the delay
 * service. Each class has one pinned answer (issue 20, item 4).
 */
@QuarkusTest
@QuarkusTestResource(EmbeddedDatabase.class)
class HostileGeneratorTest {

    static final long SEED = Long.getLong("hostile.seed", System.nanoTime());
    static final int PER_CLASS = 12;
    static final String[] TARGETS = {"/virtual/io?delay=0", "/worker/io?delay=0", "/reactive/io?delay=0", "/delay/0"};

    /** A JSON edge case and the answer it must get. */
    record Body(String name, byte[] bytes, int status) {
    }

    @TestFactory
    List<DynamicTest> jsonEdgeCases() {
        Random random = new Random(SEED);
        List<Body> bodies = new ArrayList<>();
        for (int i = 0; i < PER_CLASS; i++) {
            bodies.add(new Body("duplicate member", utf8(duplicate(random)), 400));
            bodies.add(new Body("unpaired surrogate", utf8(order(surrogate(random), "sku")), 400));
            bodies.add(new Body("deep nesting", utf8(deep(random)), 400));
            bodies.add(new Body("huge number", utf8("{\"customer\":\"c\",\"sku\":\"s\",\"quantity\":" + huge(random) + "}"), 400));
            bodies.add(new Body("non-UTF-8 bytes", nonUtf8(random), 400));
            // RFC 8259 lets a parser ignore a leading byte order mark; Jackson does, so the order is taken as sent
            bodies.add(new Body("BOM", concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF},
                    utf8(order("bom-" + random.nextInt(1000), "sku"))), 201));
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Mode mode : Mode.values()) {
            for (Body body : bodies) {
                String label = mode.path() + " " + body.name() + " (seed " + SEED + "): " + clip(new String(body.bytes(), StandardCharsets.ISO_8859_1));
                tests.add(DynamicTest.dynamicTest(label, () -> {
                    RawHttp.Answer answer = RawHttp.send(RestAssured.port, concat(utf8("POST /" + mode.path()
                            + "/orders?delay=0 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\n"
                            + "Content-Length: " + body.bytes().length + "\r\n\r\n"), body.bytes()), 2000);
                    assertEquals(body.status(), answer.status(), label + " -> " + answer);
                    if (answer.status() >= 400) {
                        assertProblem(answer, label);
                    }
                }));
            }
        }
        return tests;
    }

    @TestFactory
    List<DynamicTest> headerEdgeCases() {
        Random random = new Random(SEED);
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < PER_CLASS * 2; i++) {
            String target = TARGETS[i % TARGETS.length];
            // a percent sign without two hex digits after it is malformed in any authority: 400 problem at once
            String bad = pick(random, "", "a", "evil.com", "x.example:80") + "%" + pick(random, "", "z", "zz", "G0", "4", "%")
                    + pick(random, "", "x", ":8080", "/");
            tests.add(header(target, "Host: " + bad, answer -> answer.status() == 400 ? null : "expected 400"));
            // any other Host: served or refused with 400 problem, never a hang
            tests.add(header(target, "Host: " + randomHost(random), answer -> answer.status() == 200 || answer.status() == 400 ? null : "expected 200 or 400"));
        }
        for (int i = 0; i < PER_CLASS * 2; i++) {
            Mode mode = Mode.values()[i % 3];
            String type = contentType(random);
            // application/json in any spelling, or a wildcard, may be taken (or refused if its parameters are odd);
            // any other type is refused with 415
            String base = type.split(";")[0].strip();
            boolean json = base.equalsIgnoreCase("application/json") || base.equals("*/*");
            tests.add(post(mode, "Content-Type: " + type, ContractTest.ORDER, answer -> json
                    ? (answer.status() == 201 || answer.status() == 400 || answer.status() == 415 ? null : "expected 201, 400 or 415")
                    : (answer.status() == 415 ? null : "expected 415")));
        }
        for (int i = 0; i < PER_CLASS * 2; i++) {
            Mode mode = Mode.values()[i % 3];
            String te = pick(random, "chunked", "Chunked", "CHUNKED", "chunked, chunked", "gzip, chunked", "chunked, gzip",
                    "identity", " chunked", "chunked ", "x-custom", "chunked;q=1", "");
            boolean withLength = random.nextBoolean();
            tests.add(chunked(mode, te, withLength, random.nextBoolean()));
        }
        return tests;
    }

    private static DynamicTest header(String target, String header, Function<RawHttp.Answer, String> expect) {
        String label = "GET " + target + " " + header + " (seed " + SEED + ")";
        return DynamicTest.dynamicTest(label, () -> {
            RawHttp.Answer answer = RawHttp.send(RestAssured.port, utf8("GET " + target + " HTTP/1.1\r\n" + header
                    + "\r\nConnection: close\r\n\r\n"), 2000);
            check(label, answer, expect);
        });
    }

    private static DynamicTest post(Mode mode, String header, String body, Function<RawHttp.Answer, String> expect) {
        String label = "POST /" + mode.path() + "/orders " + header + " (seed " + SEED + ")";
        return DynamicTest.dynamicTest(label, () -> {
            RawHttp.Answer answer = RawHttp.send(RestAssured.port, HostileInputTest.request("POST",
                    "/" + mode.path() + "/orders?delay=0", header + "\r\n", body), 2000);
            check(label, answer, expect);
        });
    }

    /** A chunked (or not) body under a Transfer-Encoding variant: answered at once, never 5xx; 4xx is problem+json or the decoder's bare 400. */
    private static DynamicTest chunked(Mode mode, String te, boolean withLength, boolean reallyChunked) {
        String body = ContractTest.ORDER;
        // the plain body ends with a blank line, so a server reading it as chunks has a complete (invalid) size line;
        // without one it is an unfinished request, which waits like any slow client until the idle timeout
        String framed = reallyChunked ? Integer.toHexString(body.length()) + "\r\n" + body + "\r\n0\r\n\r\n" : body + "\r\n\r\n";
        String label = "POST /" + mode.path() + "/orders Transfer-Encoding: '" + te + "'" + (withLength ? " + Content-Length" : "")
                + (reallyChunked ? ", chunked body" : ", plain body") + " (seed " + SEED + ")";
        return DynamicTest.dynamicTest(label, () -> {
            // a chunk size line that is no number fails in the decoder; HttpLimits still answers (400 problem) before
            // Vert.x closes the connection (docs/hostile-clients.md "What is not problem JSON")
            RawHttp.Answer answer = RawHttp.send(RestAssured.port, utf8("POST /" + mode.path() + "/orders?delay=0 HTTP/1.1\r\n"
                    + "Host: localhost\r\nContent-Type: application/json\r\nConnection: close\r\nTransfer-Encoding: " + te + "\r\n"
                    + (withLength ? "Content-Length: " + framed.length() + "\r\n" : "") + "\r\n" + framed), 2000);
            assertTrue(answer.status() >= 200 && answer.status() < 500, label + " -> " + answer);
            if (answer.status() >= 400 && !(answer.status() == 400 && answer.body().isEmpty())) {
                assertProblem(answer, label);
            }
        });
    }

    private static void check(String label, RawHttp.Answer answer, Function<RawHttp.Answer, String> expect) {
        String wrong = expect.apply(answer);
        assertTrue(wrong == null, label + " -> " + answer + ": " + wrong);
        if (answer.status() >= 400) {
            assertProblem(answer, label);
        }
    }

    private static void assertProblem(RawHttp.Answer answer, String label) {
        assertTrue(String.valueOf(answer.headers().get("content-type")).startsWith("application/problem+json"), label + " -> " + answer);
        assertEquals(answer.status(), new JsonObject(answer.body()).getInteger("status"), label);
        assertTrue(!answer.body().contains("Exception") && !answer.body().contains("org.vtvr"), label + " -> " + answer);
    }

    // ---- generators -------------------------------------------------------------------------------------------

    static String order(String customer, String sku) {
        return "{\"customer\":\"" + customer + "\",\"sku\":\"" + sku + "\",\"quantity\":1}";
    }

    /** One member named twice, anywhere, with values valid or not: refused whatever the values. */
    static String duplicate(Random random) {
        List<String> members = new ArrayList<>(List.of("\"customer\":\"c\"", "\"sku\":\"s\"", "\"quantity\":1"));
        String[] again = {"\"customer\":\"" + pick(random, "d", "", " ", "x".repeat(200)) + "\"",
                "\"sku\":" + pick(random, "\"t\"", "null", "1"), "\"quantity\":" + pick(random, "2", "5000", "-1", "\"x\"")};
        members.add(random.nextInt(members.size() + 1), again[random.nextInt(again.length)]);
        return "{" + String.join(",", members) + "}";
    }

    /** A text with an unpaired UTF-16 surrogate, JSON-escaped: a high one alone, a low one alone, or the two reversed. */
    static String surrogate(Random random) {
        String high = String.format("\\u%04X", 0xD800 + random.nextInt(0x400));
        String low = String.format("\\u%04X", 0xDC00 + random.nextInt(0x400));
        String odd = switch (random.nextInt(3)) {
            case 0 -> high;
            case 1 -> low;
            default -> low + high;
        };
        return "a".repeat(random.nextInt(5)) + odd + "b".repeat(random.nextInt(5));
    }

    /** Nested arrays or objects deeper than Jackson's limit (1,000), at the root or in a member. */
    static String deep(Random random) {
        // within quarkus.http.limits.max-body-size (16 KB), so the depth and not the size is refused
        boolean arrays = random.nextBoolean();
        int depth = 1001 + random.nextInt(arrays ? 6000 : 1400);
        String nest = arrays ? "[".repeat(depth) + "]".repeat(depth) : "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
        return random.nextBoolean() ? nest : "{\"customer\":\"c\",\"sku\":\"s\",\"quantity\":1,\"extra\":" + nest + "}";
    }

    /** A number no int can hold: many digits, a huge exponent, a fraction. */
    static String huge(Random random) {
        StringBuilder digits = new StringBuilder(pick(random, "", "-")).append(1 + random.nextInt(9));
        for (int i = 0, n = 10 + random.nextInt(2000); i < n; i++) {
            digits.append(random.nextInt(10));
        }
        return switch (random.nextInt(3)) {
            case 0 -> digits.toString();
            case 1 -> "1e" + (300 + random.nextInt(100_000));
            default -> "1." + digits.substring(digits.length() - 5);
        };
    }

    /** An order whose customer holds bytes that are no UTF-8: a lone continuation byte, an overlong form, an encoded surrogate, a cut sequence, 0xF5-0xFF. */
    static byte[] nonUtf8(Random random) {
        byte[][] invalid = {{(byte) (0x80 + random.nextInt(0x40))}, {(byte) 0xC0, (byte) 0xAE}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                {(byte) 0xE2, (byte) 0x82}, {(byte) (0xF5 + random.nextInt(11))}, {(byte) 0xF0, (byte) 0x9F, (byte) 0x92}};
        return concat(utf8("{\"customer\":\"x"), invalid[random.nextInt(invalid.length)], utf8("y\",\"sku\":\"s\",\"quantity\":1}"));
    }

    static String randomHost(Random random) {
        String alphabet = "abcxyz019.-:[]@%_~!$&'()*+,;=";
        StringBuilder host = new StringBuilder();
        for (int i = 0, n = 1 + random.nextInt(30); i < n; i++) {
            host.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return host.toString();
    }

    static String contentType(Random random) {
        String type = pick(random, "application/json", "Application/JSON", "application/json ", "text/plain", "application/xml",
                "application/jsonx", "application/", "json", "application/problem+json", "*/*", "multipart/form-data");
        String parameter = pick(random, "", "; charset=utf-8", "; charset=UTF-8", "; charset=\"utf-8\"", "; charset=latin1",
                "; charset=bogus", "; boundary=x", ";", "; q=0.5", "; charset=utf-8; charset=utf-16");
        return type + parameter;
    }

    @SafeVarargs
    static <T> T pick(Random random, T... choices) {
        return choices[random.nextInt(choices.length)];
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static String clip(String text) {
        return text.length() <= 100 ? text : text.substring(0, 100) + "...";
    }
}
