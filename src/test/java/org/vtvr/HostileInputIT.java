package org.vtvr;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import org.junit.jupiter.params.provider.Arguments;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The hostile-input suite against the packaged application, on a sample: every {@value #EVERY}th case of the matrix,
 * which {@link HostileInputTest} runs in full against the same code; the sample spreads over the whole matrix (values,
 * shapes, paths, methods, bodies, headers, each mode).
 */
@QuarkusIntegrationTest
class HostileInputIT extends HostileInputTest {

    static final int EVERY = 7;

    /** Hides the full matrix of the superclass for this class's parameterized tests. */
    static Stream<Arguments> hostileRequests() {
        AtomicInteger index = new AtomicInteger();
        return HostileInputTest.hostileRequests().filter(request -> index.getAndIncrement() % EVERY == 0);
    }
}
