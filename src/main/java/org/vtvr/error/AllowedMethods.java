package org.vtvr.error;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import org.vtvr.delay.DelayResource;
import org.vtvr.reactive.ReactiveResource;
import org.vtvr.virtual.VirtualResource;
import org.vtvr.worker.WorkerResource;

import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The methods each endpoint path accepts, read once from the resources' annotations: the {@code Allow} header of a
 * 405 answer and of an OPTIONS answer. Quarkus REST throws its 405 without one (ClassRoutingHandler builds the
 * response with no headers) and answers OPTIONS with every method of the resource class.
 */
public final class AllowedMethods {

    private static final Map<Pattern, Set<String>> BY_PATH = index(VirtualResource.class, WorkerResource.class,
            ReactiveResource.class, DelayResource.class);

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

    private static Map<Pattern, Set<String>> index(Class<?>... resources) {
        Map<Pattern, Set<String>> index = new LinkedHashMap<>();
        for (Class<?> resource : resources) {
            String base = resource.getAnnotation(Path.class).value();
            for (Method method : resource.getDeclaredMethods()) {
                String verb = httpMethod(method);
                if (verb == null) {
                    continue;
                }
                Path sub = method.getAnnotation(Path.class);
                String template = ("/" + base + "/" + (sub == null ? "" : sub.value())).replaceAll("/+", "/").replaceFirst("(.)/$", "$1");
                Pattern pattern = Pattern.compile(template.replaceAll("\\{[^}]+}", "[^/]+"));
                Set<String> allowed = index.computeIfAbsent(pattern, p -> new TreeSet<>(Set.of("OPTIONS")));
                allowed.add(verb);
                if (verb.equals("GET")) {
                    allowed.add("HEAD");
                }
            }
        }
        return index;
    }

    private static String httpMethod(Method method) {
        for (var annotation : method.getAnnotations()) {
            HttpMethod verb = annotation.annotationType().getAnnotation(HttpMethod.class);
            if (verb != null) {
                return verb.value();
            }
        }
        return null;
    }
}
