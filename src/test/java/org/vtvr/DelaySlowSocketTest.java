package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

import java.util.Map;

/** The delay service slower than the read timeout, with the socket client: the same 504s. */
@QuarkusTest
@TestProfile(DelaySlowSocketTest.DelaySlowSocket.class)
class DelaySlowSocketTest extends DelaySlowTest {

    public static class DelaySlowSocket extends DelaySlow {
        @Override
        public Map<String, String> getConfigOverrides() {
            return SocketClient.with(super.getConfigOverrides());
        }
    }
}
