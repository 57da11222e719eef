package org.vtvr;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same assertions against the packaged application (the jar here, the native binary with -Dnative). */
@QuarkusIntegrationTest
class ScenarioIT extends ScenarioTest {
}
