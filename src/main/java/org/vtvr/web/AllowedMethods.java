package org.vtvr.web;

import org.vtvr.api.DelayReply;
import org.vtvr.floor.FloorRoutes;
import org.vtvr.floor.FloorWork;
import org.vtvr.ladder.LadderResource;
import org.vtvr.scenario.Mode;
import org.vtvr.scenario.Scenario;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The methods each endpoint path accepts, from the scenario catalogue, GET /scenarios, the floor's routes, the
 * ladder's rungs and the delay service's path: the {@code Allow} header of a 405 answer and of an OPTIONS answer (contract.OptionsAnswer).
 * Quarkus REST throws its 405 without one (ClassRoutingHandler builds the response with no headers).
 */
public final class AllowedMethods {

    private static final Map<Pattern, Set<String>> BY_PATH = index();

    private AllowedMethods() {
    }

    /** "GET, HEAD, OPTIONS" style, or null when no endpoint has this path. */
    public static String of(String path) {
        String normalized = "/" + path.replaceFirst("^/+", "").replaceFirst("/+$", "");
        Set<String> methods = new TreeSet<>();
        BY_PATH.forEach((pattern, allowed) -> {
            if (pattern.matcher(normalized).matches()) {
                methods.addAll(allowed);
            }
        });
        return methods.isEmpty() ? null : String.join(", ", methods);
    }

    private static Map<Pattern, Set<String>> index() {
        Map<Pattern, Set<String>> index = new LinkedHashMap<>();
        add(index, DelayReply.PATH + "/{ms}", "GET");
        add(index, CatalogueResource.PATH, "GET");
        for (Scenario scenario : Scenario.values()) {
            for (Mode mode : scenario.modes()) {
                add(index, "/" + mode.path() + scenario.path(), scenario.method());
            }
        }
        for (Scenario scenario : FloorWork.SCENARIOS) {
            add(index, "/" + FloorRoutes.SERIES + scenario.path(), scenario.method());
        }
        for (String rung : LadderResource.paths()) {
            add(index, rung, "GET");
        }
        return index;
    }

    private static void add(Map<Pattern, Set<String>> index, String template, String verb) {
        Pattern pattern = Pattern.compile(template.replaceAll("\\{[^}]+}", "[^/]+"));
        Set<String> allowed = index.computeIfAbsent(pattern, p -> new TreeSet<>(Set.of("OPTIONS")));
        allowed.add(verb);
        if (verb.equals("GET")) {
            allowed.add("HEAD");
        }
    }
}
