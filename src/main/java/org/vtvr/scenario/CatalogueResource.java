package org.vtvr.scenario;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.vtvr.config.BenchConfig;

import java.util.Arrays;
import java.util.List;

/**
 * {@code GET /scenarios}: the catalogue as this instance serves it, bounds resolved from its configuration, so load
 * scripts and other clients take the scenario list from the running app instead of keeping their own.
 */
@Path(CatalogueResource.PATH)
@Produces(MediaType.APPLICATION_JSON)
public class CatalogueResource {

    public static final String PATH = "/scenarios";

    /** One scenario: {@code path} is below each mode's root ({@code /<mode><path>}). */
    public record Entry(String name, String method, String path, List<String> modes, List<Parameter> params) {
    }

    /** One parameter; {@code min}/{@code max} for a number ({@code max} null: unbounded), {@code choices} for a word. */
    public record Parameter(String name, String defaultValue, Long min, Long max, String maxSetting, List<String> choices) {
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
                scenario.args().stream().map(arg -> parameter(arg.param(), arg.defaultValue())).toList());
    }

    private Parameter parameter(Param param, String defaultValue) {
        if (!param.choices().isEmpty()) {
            return new Parameter(param.key(), defaultValue, null, null, null, param.choices());
        }
        boolean bounded = param.maxSetting() != null;
        return new Parameter(param.key(), defaultValue, bounded ? param.min() : null, bounded ? param.max(config) : null,
                param.maxSetting(), null);
    }
}
