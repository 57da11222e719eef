package org.vtvr.delay.client;

import java.io.IOException;
import java.time.Duration;

/**
 * One blocking call to the delay service, made on the calling thread; {@link DelayGateway} picks the implementation
 * ({@code bench.blocking-client}), times it and turns its failures into problems (502, 503 or 504).
 */
interface BlockingDelayClient {

    /**
     * Waits for {@code /delay/{ms}} at most {@code timeout} and returns the reply's delay; past the timeout, or when
     * the calling thread is interrupted, the HTTP request is aborted (the delay service sees the connection end).
     */
    int call(int ms, Duration timeout) throws IOException;
}
