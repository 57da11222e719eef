package org.vtvr.delay.client;

import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;
import org.vtvr.delay.service.DelayResource;

/**
 * The REST client of the delay service, configured by {@code quarkus.rest-client.delay.*}: one blocking method
 * (virtual and worker modes) and one {@code Uni} method (reactive mode) for the same call.
 */
@RegisterRestClient(configKey = "delay")
@Path("/delay")
public interface DelayClient {

    @GET
    @Path("/{ms}")
    DelayResource.Reply call(@PathParam("ms") int ms);

    @GET
    @Path("/{ms}")
    Uni<DelayResource.Reply> callAsync(@PathParam("ms") int ms);
}
