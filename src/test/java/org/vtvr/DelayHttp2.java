package org.vtvr;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/** Runs a test class with the delay service called over h2c ({@code bench.delay-http2=true}). */
public class DelayHttp2 implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("bench.delay-http2", "true");
    }
}
