package org.vtvr;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The bad-input assertions against the packaged application. */
@QuarkusIntegrationTest
class BadInputIT extends BadInputTest {
}
