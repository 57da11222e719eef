package org.vtvr;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The socket-client scenarios against the packaged application. */
@QuarkusIntegrationTest
class ScenarioSocketIT extends ScenarioSocketTest {
}
