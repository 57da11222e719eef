package org.vtvr;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The hostile-input suite against the packaged application. */
@QuarkusIntegrationTest
class HostileInputIT extends HostileInputTest {
}
