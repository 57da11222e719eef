package org.vtvr;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.HashMap;
import java.util.Map;

/** Runs a test class again with the socket delay client ({@code bench.blocking-client=socket}). */
public class SocketClient implements QuarkusTestProfile {

    static final Map<String, String> SETTING = Map.of("bench.blocking-client", "socket");

    @Override
    public Map<String, String> getConfigOverrides() {
        return SETTING;
    }

    /** Another profile's overrides plus the socket client. */
    static Map<String, String> with(Map<String, String> others) {
        Map<String, String> overrides = new HashMap<>(others);
        overrides.putAll(SETTING);
        return overrides;
    }
}
