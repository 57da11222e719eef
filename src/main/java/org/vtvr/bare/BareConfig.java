package org.vtvr.bare;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.WithDefault;
import org.vtvr.config.BenchConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodType;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The bare process's settings, read as the app reads its own without starting Quarkus: the app's
 * application.properties (its {@code prod} profile) below the environment and system properties, with SmallRye Config,
 * the library Quarkus reads them with. So {@code QUARKUS_HTTP_PORT}, {@code QUARKUS_REST_CLIENT_DELAY_URL},
 * {@code BENCH_*} set the bare process as they set the app.
 */
public final class BareConfig {

    /** The profile a packaged app runs in. */
    static final String PROFILE = "prod";

    private BareConfig() {
    }

    /** The settings, OVERRIDES above every other source (tests). */
    public static SmallRyeConfig read(Map<String, String> overrides) {
        URL properties = BareConfig.class.getClassLoader().getResource("application.properties");
        if (properties == null) {
            throw new IllegalStateException("no application.properties on the class path: run from the built app");
        }
        try {
            return new SmallRyeConfigBuilder().addDefaultSources().addDefaultInterceptors()
                    // the ordinals Quarkus gives application.properties and nothing above the system properties
                    .withSources(new PropertiesConfigSource(properties, 250))
                    .withSources(new PropertiesConfigSource(overrides, "overrides", 500))
                    .withConverter(Duration.class, 200, new DurationConverter())
                    .withProfile(PROFILE)
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@link BenchConfig} over CONFIG: each method reads {@code bench.<its name in kebab case>} (SmallRye's naming of
     * a mapping), else its {@code @WithDefault}, so its defaults stay named once, in BenchConfig. Quarkus builds the
     * mapping's class at build time; a process without Quarkus has none, hence the proxy.
     */
    static BenchConfig bench(SmallRyeConfig config) {
        Class<?>[] mapping = {BenchConfig.class};
        return (BenchConfig) Proxy.newProxyInstance(BenchConfig.class.getClassLoader(), mapping, (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> "BenchConfig of the bare process";
                };
            }
            String key = "bench." + method.getName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
            Class<?> type = MethodType.methodType(method.getReturnType()).wrap().returnType();
            WithDefault otherwise = method.getAnnotation(WithDefault.class);
            Optional<?> value = config.getOptionalValue(key, type);
            if (value.isPresent()) {
                return value.get();
            }
            if (otherwise == null) {
                throw new IllegalStateException(key + " is not set");
            }
            return config.convert(otherwise.value(), type);
        });
    }
}
