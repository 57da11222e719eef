package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The delay service unreachable, with the socket client: the same 502s within the connect timeout. */
@QuarkusTest
@TestProfile(DelayGate.SocketProfile.class)
class DelayDownSocketTest extends DelayDownTest {
}
