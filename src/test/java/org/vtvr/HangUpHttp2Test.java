package org.vtvr;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The same hang-ups, every mode calling the delay service over h2c: a call given up is a reset stream there. */
@QuarkusTest
@TestProfile(DelayHttp2.class)
class HangUpHttp2Test extends HangUpTest {
}
