package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The same hang-ups, the virtual and worker modes calling the delay service with the socket client. */
@QuarkusTest
@TestProfile(SocketClient.class)
class HangUpSocketTest extends HangUpTest {
}
