package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

import java.util.Map;

/** The delay service unreachable, with the socket client: the same 502s within the connect timeout. */
@QuarkusTest
@TestProfile(DelayDownSocketTest.DelayDownSocket.class)
class DelayDownSocketTest extends DelayDownTest {

    public static class DelayDownSocket extends DelayDown {
        @Override
        public Map<String, String> getConfigOverrides() {
            return SocketClient.with(super.getConfigOverrides());
        }
    }
}
