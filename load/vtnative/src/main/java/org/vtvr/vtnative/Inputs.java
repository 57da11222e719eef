package org.vtvr.vtnative;

import org.vtvr.config.BenchConfig;
import org.vtvr.error.ProblemException;
import org.vtvr.error.ProblemType;
import org.vtvr.limits.Deadline;
import org.vtvr.scenario.Param;
import org.vtvr.scenario.Scenario;

import java.util.regex.Pattern;

/**
 * The app's input rules for the numbers and the deadline this process serves, word for word those of
 * {@code limits.Limits} (a CDI bean tied to the app's request types, so not compiled here); load/tests/test_vtnative.py
 * holds every answer of theirs equal to the virtual mode's.
 */
final class Inputs {

    private static final Pattern DIGITS = Pattern.compile("[+-]?[0-9]{1,19}");

    private final BenchConfig config;

    Inputs(BenchConfig config) {
        this.config = config;
    }

    /** A number parameter of {@code scenario}, its catalogue default when the request leaves it out. */
    int number(Scenario scenario, Param param, String raw) {
        return (int) parse(param, raw == null ? scenario.defaultOf(param) : raw);
    }

    /** The request's deadline; a request whose planned delay cannot fit it is refused (400). */
    Deadline deadline(Scenario scenario, long startNanos, long plannedMs) {
        long deadlineMs = config.requestDeadline().toMillis();
        if (plannedMs > deadlineMs) {
            throw bad(scenario.id() + " would wait " + plannedMs + " ms for the delay service, more than"
                    + " the request deadline of " + deadlineMs + " ms (bench.request-deadline)");
        }
        return Deadline.of(startNanos, config.requestDeadline());
    }

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
