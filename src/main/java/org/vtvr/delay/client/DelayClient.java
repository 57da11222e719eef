package org.vtvr.delay.client;

import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import org.eclipse.microprofile.rest.client.annotation.RegisterProvider;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;
import org.vtvr.api.DelayReply;

/**
 * The REST client of the delay service, configured by {@code quarkus.rest-client.delay.*}. Every mode calls its
 * tagged {@code Uni} method through {@link PooledCalls}: the reactive mode directly, the blocking modes waiting on it
 * ({@link RestBlockingDelayClient} says why not on a blocking method); the ladder's raw steps call the untagged one.
 * Over HTTP/1.1, or h2c with prior knowledge when {@code bench.delay-http2}.
 */
@RegisterRestClient(configKey = "delay")
@RegisterProvider(PriorKnowledge.class)
@Path(DelayReply.PATH)
public interface DelayClient {

    @GET
    @Path("/{ms}")
    Uni<DelayReply> callAsync(@PathParam("ms") int ms);

    /** The same call tagged, so {@link PooledCalls} can tell when it has its connection (the service ignores it). */
    @GET
    @Path("/{ms}")
    Uni<DelayReply> callAsync(@PathParam("ms") int ms, @QueryParam(PooledCalls.TAG) long tag);
}
