package org.vtvr.web;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.vtvr.bare.BareVertx;
import org.vtvr.config.BenchConfig;
import org.vtvr.floor.FloorRoutes;
import org.vtvr.floor.FloorWork;
import org.vtvr.ladder.LadderResource;
import org.vtvr.scenario.Mode;
import org.vtvr.scenario.Param;
import org.vtvr.scenario.Scenario;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /scenarios}: the catalogue as this instance serves it, bounds resolved from its configuration, so load
 * scripts and other clients take the scenario list from the running app instead of keeping their own. Besides the
 * modes, each entry names every series that serves the scenario with its path: the modes, and the measurement-only
 * series of docs/floor.md (the floor, the ladder's rungs, the bare Vert.x process, vt-native), and what a load tool
 * sends and expects (body, status).
 * Served in every profile, the delay-only one too (the load harness reads it there before a run).
 */
@Path(CatalogueResource.PATH)
@Produces(MediaType.APPLICATION_JSON)
public class CatalogueResource {

    public static final String PATH = "/scenarios";

    /**
     * The series {@code vt-native}, of kind {@code helidon}: the blocking scenarios on Helidon SE's web server, a virtual
     * thread per request without Quarkus (load/vtnative, issue #43), at the same paths below its own name.
     */
    static final String VT_NATIVE = "vt-native";
    static final List<Scenario> VT_NATIVE_SCENARIOS = List.of(Scenario.IO, Scenario.FANOUT, Scenario.DB, Scenario.WORKLOAD);

    /**
     * One scenario: {@code path} is below each mode's root ({@code /<mode><path>}); {@code status} is a correct
     * answer's, {@code body} a request body that passes every check (empty: the scenario takes none);
     * {@code series} every series that serves it, the modes first; {@code deadlineMs} the request deadline
     * ({@code bench.request-deadline}): a request whose planned wait at the delay service cannot fit it is refused
     * with 400 (workload's: calls x delay, plus one delay when it fans out).
     */
    public record Entry(String name, String method, String path, List<String> modes, List<Parameter> params,
                        int status, String body, List<Series> series, long deadlineMs) {
    }

    /**
     * One series serving a scenario at {@code path}: {@code kind} is {@code mode} (a product mode), {@code floor},
     * {@code ladder} (a rung of the cost ladder), {@code bare} or {@code helidon}, the last four measurement tools only
     * (docs/floor.md).
     * A {@code bare} series is not served by this app but by a process of its own without Quarkus
     * ({@code bare.BareVertx}, at the same path), which the load harness starts beside it; so is a {@code helidon}
     * series ({@value #VT_NATIVE}: load/vtnative's Helidon SE process).
     */
    public record Series(String name, String kind, String path) {
    }

    /**
     * One parameter; {@code min}/{@code max} for a number ({@code max} null: unbounded), {@code maxSetting} the
     * {@code bench.*} setting of its max (null: fixed, as insert's 1), {@code choices} for a word; {@code maxByMode}
     * a lower max in some modes (the CPU kernel's size in reactive mode, where it runs on the event loop:
     * {@code bench.max-n-event-loop}), null where every mode takes {@code max}.
     */
    public record Parameter(String name, String defaultValue, Long min, Long max, String maxSetting, List<String> choices,
                            Map<String, Long> maxByMode) {
    }

    @Inject
    BenchConfig config;

    @GET
    public List<Entry> list() {
        return Arrays.stream(Scenario.values()).map(this::entry).toList();
    }

    private Entry entry(Scenario scenario) {
        List<String> modes = Arrays.stream(Mode.values()).filter(scenario.modes()::contains).map(Mode::path).toList();
        return new Entry(scenario.id(), scenario.method(), scenario.path(), modes,
                scenario.args().stream().map(arg -> parameter(arg.param(), arg.defaultValue())).toList(),
                scenario.status(), scenario.exampleBody(), series(scenario), config.requestDeadline().toMillis());
    }

    private static List<Series> series(Scenario scenario) {
        List<Series> series = new ArrayList<>();
        for (Mode mode : Mode.values()) {
            if (scenario.modes().contains(mode)) {
                series.add(new Series(mode.path(), "mode", "/" + mode.path() + scenario.path()));
            }
        }
        if (FloorWork.SCENARIOS.contains(scenario)) {
            series.add(new Series(FloorRoutes.SERIES, "floor", "/" + FloorRoutes.SERIES + scenario.path()));
            series.add(new Series(BareVertx.SERIES, "bare", "/" + BareVertx.SERIES + scenario.path()));
        }
        if (VT_NATIVE_SCENARIOS.contains(scenario)) {
            series.add(new Series(VT_NATIVE, "helidon", "/" + VT_NATIVE + scenario.path()));
        }
        if (LadderResource.SCENARIOS.contains(scenario)) {
            for (String rung : LadderResource.RUNGS) {
                series.add(new Series(LadderResource.series(rung), "ladder", LadderResource.path(rung, scenario)));
            }
        }
        return series;
    }

    private Parameter parameter(Param param, String defaultValue) {
        if (!param.choices().isEmpty()) {
            return new Parameter(param.key(), defaultValue, null, null, null, param.choices(), null);
        }
        Map<String, Long> byMode = param.sizesKernel() && config.maxNEventLoop() < param.max(config)
                ? Map.of(Mode.REACTIVE.path(), (long) config.maxNEventLoop()) : null;
        return new Parameter(param.key(), defaultValue, param.bounded() ? param.min() : null,
                param.bounded() ? param.max(config) : null, param.maxSetting(), null, byMode);
    }
}
