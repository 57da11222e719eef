package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The delay service slower than the read timeout, with the socket client: the same 504s. */
@QuarkusTest
@TestProfile(DelayGate.SocketProfile.class)
class DelaySlowSocketTest extends DelaySlowTest {
}
