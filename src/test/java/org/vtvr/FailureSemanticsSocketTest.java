package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

import java.util.Map;

/** The same failure and deadline semantics with the socket delay client in the virtual and worker modes. */
@QuarkusTest
@TestProfile(FailureSemanticsSocketTest.ShortDeadlineSocket.class)
class FailureSemanticsSocketTest extends FailureSemanticsTest {

    /** {@link FailureSemanticsTest.ShortDeadline} plus the socket client. */
    public static class ShortDeadlineSocket extends ShortDeadline {
        @Override
        public Map<String, String> getConfigOverrides() {
            return SocketClient.with(super.getConfigOverrides());
        }
    }
}
