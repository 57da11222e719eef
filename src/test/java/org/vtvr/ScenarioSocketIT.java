package org.vtvr;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;

/** The socket-client scenarios against the packaged application. */
@QuarkusIntegrationTest
@TestProfile(SocketClient.class)
class ScenarioSocketIT extends ScenarioSocketTest {
}
