package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The same series with the socket client, its calls tagged {@code client="socket"}. */
@QuarkusTest
@TestProfile(SocketClient.class)
class ObservabilitySocketTest extends ObservabilityTest {
}
