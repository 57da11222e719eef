package org.vtvr.scenario;

import org.vtvr.api.OrderRequest;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static org.vtvr.scenario.Param.CALLS;
import static org.vtvr.scenario.Param.DELAY;
import static org.vtvr.scenario.Param.FANOUT_CALLS;
import static org.vtvr.scenario.Param.ID;
import static org.vtvr.scenario.Param.INSERT;
import static org.vtvr.scenario.Param.LOCK;
import static org.vtvr.scenario.Param.N;
import static org.vtvr.scenario.Param.QUERIES;
import static org.vtvr.scenario.Param.WORKLOAD_CALLS;
import static org.vtvr.scenario.Param.WORKLOAD_CPU;
import static org.vtvr.scenario.Param.WORKLOAD_FANOUT;
import static org.vtvr.scenario.Param.WORKLOAD_QUERIES;

/**
 * The catalogue: every scenario once, with its HTTP method, its path below a mode, its parameters and their defaults,
 * and the modes that serve it. Results, deadline messages, {@code Allow} answers and {@code GET /scenarios} take
 * their names from here.
 */
public enum Scenario {
    IO("GET", Paths.IO, Mode.ALL, arg(DELAY, "100"), arg(CALLS, "1")),
    FANOUT("GET", Paths.FANOUT, Mode.ALL, arg(DELAY, "100"), arg(FANOUT_CALLS, "10")),
    DB("GET", Paths.DB, Mode.ALL, arg(QUERIES, "1")),
    SLOW_QUERY("GET", Paths.SLOW_QUERY, Mode.ALL, arg(DELAY, "500")),
    /** Takes an order body ({@code api.OrderRequest}) and answers 201 with the stored order. */
    CHECKOUT("POST", Paths.CHECKOUT, Mode.ALL, arg(DELAY, "100")),
    ORDER("GET", Paths.ORDER, Mode.ALL, arg(ID, null)),
    CPU("GET", Paths.CPU, Mode.ALL, arg(N, "100000")),
    /** Only where a thread can block inside a monitor: the reactive mode holds no lock. */
    PINNING("GET", Paths.PINNING, EnumSet.of(Mode.VIRTUAL, Mode.WORKER), arg(DELAY, "100"), arg(LOCK, "synchronized")),
    /**
     * io's calls, then fanout's, then db's reads, then cpu's kernel, then checkout's insert, in one request
     * ({@code scenario.Workload}); every step is 0 unless asked for.
     */
    WORKLOAD("GET", Paths.WORKLOAD, Mode.ALL, arg(DELAY, "100"), arg(WORKLOAD_CALLS, "0"), arg(WORKLOAD_FANOUT, "0"),
            arg(WORKLOAD_QUERIES, "0"), arg(WORKLOAD_CPU, "0"), arg(INSERT, "0"));

    /** The paths below a mode's root, as constants for the resources' {@code @Path} annotations. */
    public static final class Paths {
        public static final String IO = "/io";
        public static final String FANOUT = "/fanout";
        public static final String DB = "/db";
        public static final String SLOW_QUERY = "/slow-query";
        public static final String CHECKOUT = "/orders";
        public static final String ORDER = "/orders/{id}";
        public static final String CPU = "/cpu";
        public static final String PINNING = "/pinning";
        public static final String WORKLOAD = "/workload";

        private Paths() {
        }
    }

    /** A parameter of one scenario with the value it takes when the request leaves it out (null: required). */
    public record Arg(Param param, String defaultValue) {
    }

    private final String method;
    private final String path;
    private final Set<Mode> modes;
    private final List<Arg> args;

    Scenario(String method, String path, Set<Mode> modes, Arg... args) {
        this.method = method;
        this.path = path;
        this.modes = Set.copyOf(modes);
        this.args = List.of(args);
    }

    private static Arg arg(Param param, String defaultValue) {
        return new Arg(param, defaultValue);
    }

    /** The name in results and messages: {@code slow-query}, {@code checkout}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public String method() {
        return method;
    }

    /** The path below a mode's root, as a JAX-RS template. */
    public String path() {
        return path;
    }

    public Set<Mode> modes() {
        return modes;
    }

    public List<Arg> args() {
        return args;
    }

    /** The status of a correct answer: 201 for checkout's created order ({@link Created}), 200 for the others. */
    public int status() {
        return this == CHECKOUT ? 201 : 200;
    }

    /** A request body that passes every check (JSON text) for a scenario that takes one; empty for the others. */
    public String exampleBody() {
        return this == CHECKOUT ? OrderRequest.EXAMPLE : "";
    }

    /** The value of {@code param} a request that leaves it out gets. */
    public String defaultOf(Param param) {
        return args.stream().filter(a -> a.param() == param).map(Arg::defaultValue).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(this + " takes no " + param.key()));
    }

    /** The scenarios {@code mode} serves. */
    public static List<Scenario> servedBy(Mode mode) {
        return Arrays.stream(values()).filter(s -> s.modes.contains(mode)).toList();
    }
}
