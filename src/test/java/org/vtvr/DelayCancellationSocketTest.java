package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The same interrupt, ending a call of the socket client. */
@QuarkusTest
@TestProfile(SocketClient.class)
class DelayCancellationSocketTest extends DelayCancellationTest {
}
