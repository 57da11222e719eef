package org.vtvr.limits;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.vtvr.api.OrderRequest;
import org.vtvr.config.BenchConfig;
import org.vtvr.error.ProblemException;
import org.vtvr.error.ProblemType;
import org.vtvr.scenario.Param;
import org.vtvr.scenario.Scenario;
import org.vtvr.http.Started;

import java.util.regex.Pattern;

/**
 * Parses and range-checks every request input against the scenario catalogue, and plans each request's deadline, so
 * all three modes accept and refuse exactly the same values. Parameters arrive as strings: a JAX-RS {@code int}
 * parameter that fails to parse answers 404, not 400.
 */
@ApplicationScoped
public class Limits {

    private static final Pattern DIGITS = Pattern.compile("[+-]?[0-9]{1,19}");
    private static final Pattern NOT_BLANK = Pattern.compile(OrderRequest.TEXT_PATTERN);

    @Inject
    BenchConfig config;

    /** The same rules outside CDI, for a process without Quarkus (the bare Vert.x baseline, {@code bare.BareVertx}). */
    public static Limits of(BenchConfig config) {
        Limits limits = new Limits();
        limits.config = config;
        return limits;
    }

    /** A number parameter of {@code scenario}, its catalogue default when the request leaves it out. */
    public int number(Scenario scenario, Param param, String raw) {
        return (int) parse(param, raw == null ? scenario.defaultOf(param) : raw);
    }

    /** The delay service's own {@code ms}, bounded like every scenario's delay. */
    public int delayServiceMs(String raw) {
        return (int) parse(Param.DELAY, raw);
    }

    /**
     * The CPU kernel's size ({@link Param#sizesKernel}: cpu's n, workload's cpu) when the kernel runs on the event
     * loop, which every mode's HTTP traffic shares: a lower ceiling.
     */
    public int nOnEventLoop(Scenario scenario, Param param, String raw) {
        int n = number(scenario, param, raw);
        if (n > config.maxNEventLoop()) {
            throw bad(param.key() + " must be in " + param.min() + ".." + config.maxNEventLoop()
                    + " in reactive mode, got " + n + ": the kernel runs on the event loop (bench.max-n-event-loop)");
        }
        return n;
    }

    public long orderId(String raw) {
        return parse(Param.ID, raw);
    }

    public String word(Scenario scenario, Param param, String raw) {
        String value = raw == null ? scenario.defaultOf(param) : raw;
        if (param.choices().contains(value)) {
            return value;
        }
        throw bad(param.key() + " must be '" + String.join("' or '", param.choices()) + "', got '" + clip(raw) + "'");
    }

    /**
     * The request's deadline ({@code bench.request-deadline} after it arrived, {@link Started#nanos()}). Refuses (400) a request whose planned
     * delay cannot fit it, so it never books connections and threads for work it could not finish.
     */
    public Deadline deadline(Started started, long plannedMs) {
        return deadline(started.scenario(), started.nanos(), plannedMs);
    }

    /** The same for a request served outside the modes (the floor series), from its scenario and start. */
    public Deadline deadline(Scenario scenario, long startNanos, long plannedMs) {
        long deadlineMs = config.requestDeadline().toMillis();
        if (plannedMs > deadlineMs) {
            throw bad(scenario.id() + " would wait " + plannedMs + " ms for the delay service, more than"
                    + " the request deadline of " + deadlineMs + " ms (bench.request-deadline)");
        }
        return Deadline.of(startNanos, config.requestDeadline());
    }

    /** slow-query's sleep must end well within the database socket timeout, or a healthy database would look stalled. */
    public void fitsSocketTimeout(int delayMs) {
        int most = config.dbSocketTimeoutMs() - 1000;
        if (delayMs > most) {
            throw bad("slow-query delay must be at most " + most + " ms (bench.db-socket-timeout-ms"
                    + " minus 1 s), got " + delayMs);
        }
    }

    public OrderRequest order(OrderRequest body) {
        if (body == null) {
            throw bad("a JSON body " + OrderRequest.SHAPE + " is required");
        }
        text("customer", body.customer());
        text("sku", body.sku());
        Integer quantity = body.quantity();
        if (quantity == null || quantity < OrderRequest.MIN_QUANTITY || quantity > OrderRequest.MAX_QUANTITY) {
            throw bad("quantity must be a whole number in " + OrderRequest.MIN_QUANTITY + ".." + OrderRequest.MAX_QUANTITY
                    + ", got " + quantity);
        }
        return body;
    }

    private static void text(String name, String value) {
        if (value == null || !NOT_BLANK.matcher(value).find()) {
            throw bad(name + " is required");
        }
        // an unpaired UTF-16 surrogate ("\\uD800" in JSON) is no Unicode character: UTF-8 cannot store it, so it is
        // refused rather than acknowledged and then stored as '?'
        if (value.codePoints().anyMatch(c -> c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE)) {
            throw bad(name + " contains an unpaired UTF-16 surrogate, which is not a Unicode character");
        }
        int length = value.codePointCount(0, value.length());
        if (length > OrderRequest.MAX_TEXT) {
            throw bad(name + " must be at most " + OrderRequest.MAX_TEXT + " characters, got " + length);
        }
    }

    /** ASCII digits only: Java's parsers also take other scripts' digits ("١٢" is 12), which no client means. */
    private long parse(Param param, String raw) {
        String value = raw == null ? "" : raw.strip();
        if (!DIGITS.matcher(value).matches()) {
            throw bad(param.key() + " must be a whole number, got '" + clip(raw) + "'");
        }
        long number;
        try {
            number = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw bad(param.key() + " is out of range, got '" + clip(raw) + "'");
        }
        long max = param.max(config);
        if (number < param.min() || number > max) {
            String setting = param.maxSetting() == null ? "" : " (" + param.maxSetting() + ")";
            throw bad(param.key() + " must be in " + param.min() + ".." + max + setting + ", got " + number);
        }
        return number;
    }

    private static ProblemException bad(String detail) {
        return ProblemType.BAD_INPUT.exception(detail);
    }

    private static String clip(String raw) {
        if (raw == null) {
            return "";
        }
        return raw.length() <= 40 ? raw : raw.substring(0, 40) + "...";
    }
}
