package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The same statements and delay calls per request with the socket delay client in the virtual and worker modes. */
@QuarkusTest
@TestProfile(SocketClient.class)
class EqualWorkSocketTest extends EqualWorkTest {
}
