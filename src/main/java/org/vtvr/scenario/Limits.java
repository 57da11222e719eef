package org.vtvr.scenario;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Parses and range-checks every request input, so all three modes accept and refuse exactly the same values.
 * Parameters arrive as strings: a JAX-RS {@code int} parameter that fails to parse answers 404, not 400.
 */
@ApplicationScoped
public class Limits {

    /** Longest customer or sku, in Unicode characters (code points): the {@code orders} columns' VARCHAR(100). */
    public static final int MAX_TEXT = 100;
    public static final int MIN_QUANTITY = 1;
    public static final int MAX_QUANTITY = 1000;
    /**
     * A text must contain a character other than space, tab, CR and LF: the same regular expression in Java, in the
     * OpenAPI document's {@code pattern} and in a client's JSON Schema validator (classes like {@code \\s} differ).
     */
    public static final String TEXT_PATTERN = "[^ \t\r\n]";

    private static final java.util.regex.Pattern NOT_BLANK = java.util.regex.Pattern.compile(TEXT_PATTERN);

    private static final java.util.regex.Pattern DIGITS = java.util.regex.Pattern.compile("[+-]?[0-9]{1,19}");

    @Inject
    BenchConfig config;

    public int delay(String raw) {
        return parse("delay", raw, 0, config.maxDelay());
    }

    public int calls(String raw) {
        return parse("calls", raw, 1, config.maxCalls());
    }

    /**
     * The request's deadline ({@code bench.request-deadline} after it started). Refuses (400) a request whose planned
     * delay cannot fit it, so it never books connections and threads for work it could not finish; fanout also may
     * not take more than its share of them.
     */
    public Deadline deadline(Started started, String scenario, long plannedMs, int concurrentCalls) {
        long deadlineMs = config.requestDeadline().toMillis();
        if (plannedMs > deadlineMs) {
            throw new BadInputException(scenario + " would wait " + plannedMs + " ms for the delay service, more than"
                    + " the request deadline of " + deadlineMs + " ms (bench.request-deadline)");
        }
        if (concurrentCalls > config.maxFanoutCalls()) {
            throw new BadInputException("fanout calls must be at most " + config.maxFanoutCalls()
                    + " (bench.max-fanout-calls), got " + concurrentCalls);
        }
        return Deadline.of(started, config.requestDeadline());
    }

    /** slow-query's sleep must end well within the database socket timeout, or a healthy database would look stalled. */
    public void fitsSocketTimeout(int delayMs) {
        int most = config.dbSocketTimeoutMs() - 1000;
        if (delayMs > most) {
            throw new BadInputException("slow-query delay must be at most " + most + " ms (bench.db-socket-timeout-ms"
                    + " minus 1 s), got " + delayMs);
        }
    }

    public int queries(String raw) {
        return parse("queries", raw, 1, config.maxQueries());
    }

    public int n(String raw) {
        return parse("n", raw, 1, config.maxN());
    }

    /** {@code n} for the cpu kernel run on the event loop, which every mode's HTTP traffic shares: a lower ceiling. */
    public int nOnEventLoop(String raw) {
        int n = n(raw);
        if (n > config.maxNEventLoop()) {
            throw new BadInputException("n must be in 1.." + config.maxNEventLoop() + " in reactive mode, got " + n
                    + ": the kernel runs on the event loop (bench.max-n-event-loop)");
        }
        return n;
    }

    public long orderId(String raw) {
        return parseLong("id", raw);
    }

    public String lock(String raw) {
        if ("synchronized".equals(raw) || "reentrant".equals(raw)) {
            return raw;
        }
        throw new BadInputException("lock must be 'synchronized' or 'reentrant', got '" + clip(raw) + "'");
    }

    public OrderRequest order(OrderRequest body) {
        if (body == null) {
            throw new BadInputException("a JSON body {\"customer\": ..., \"sku\": ..., \"quantity\": ...} is required");
        }
        text("customer", body.customer());
        text("sku", body.sku());
        if (body.quantity() == null || body.quantity() < MIN_QUANTITY || body.quantity() > MAX_QUANTITY) {
            throw new BadInputException("quantity must be a whole number in " + MIN_QUANTITY + ".." + MAX_QUANTITY
                    + ", got " + body.quantity());
        }
        return body;
    }

    private static void text(String name, String value) {
        if (value == null || !NOT_BLANK.matcher(value).find()) {
            throw new BadInputException(name + " is required");
        }
        // an unpaired UTF-16 surrogate ("\\uD800" in JSON) is no Unicode character: UTF-8 cannot store it, so it is
        // refused rather than acknowledged and then stored as '?'
        if (value.codePoints().anyMatch(c -> c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE)) {
            throw new BadInputException(name + " contains an unpaired UTF-16 surrogate, which is not a Unicode character");
        }
        int length = value.codePointCount(0, value.length());
        if (length > MAX_TEXT) {
            throw new BadInputException(name + " must be at most " + MAX_TEXT + " characters, got " + length);
        }
    }

    private static int parse(String name, String raw, int min, int max) {
        long value = parseLong(name, raw);
        if (value < min || value > max) {
            throw new BadInputException(name + " must be in " + min + ".." + max + ", got " + value);
        }
        return (int) value;
    }

    /** ASCII digits only: Java's parsers also take other scripts' digits ("١٢" is 12), which no client means. */
    private static long parseLong(String name, String raw) {
        String value = raw == null ? "" : raw.strip();
        if (!DIGITS.matcher(value).matches()) {
            throw new BadInputException(name + " must be a whole number, got '" + clip(raw) + "'");
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new BadInputException(name + " is out of range, got '" + clip(raw) + "'");
        }
    }

    private static String clip(String raw) {
        if (raw == null) {
            return "";
        }
        return raw.length() <= 40 ? raw : raw.substring(0, 40) + "...";
    }
}
