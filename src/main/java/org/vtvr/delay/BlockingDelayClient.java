package org.vtvr.delay;

import java.io.IOException;

/**
 * One blocking call to the delay service, made on the calling thread; {@link DelayGateway} picks the implementation
 * ({@code bench.blocking-client}), times it and turns its failures into {@link DelayException}s.
 */
interface BlockingDelayClient {

    /** Waits for {@code /delay/{ms}} and returns the reply's delay; an interrupt of the calling thread ends the wait. */
    int call(int ms) throws IOException;
}
