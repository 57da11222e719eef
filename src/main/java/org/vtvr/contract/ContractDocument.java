package org.vtvr.contract;

import io.quarkus.smallrye.openapi.OpenApiFilter;
import io.smallrye.config.SmallRyeConfig;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.media.Content;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;
import org.vtvr.error.Problem;
import org.vtvr.scenario.BenchConfig;
import org.vtvr.scenario.Limits;
import org.vtvr.scenario.Mode;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Completes the generated OpenAPI document at start-up with what the annotations cannot say: each parameter's type,
 * bounds and default from the running configuration ({@link BenchConfig}, {@link Limits}, the same values the
 * checks read), the order body's rules, 201 + {@code Location} and the link to the order's read-back for checkout,
 * and every problem answer an operation can give.
 */
@OpenApiFilter(OpenApiFilter.RunStage.RUN)
public class ContractDocument implements OASFilter {

    private static final String PROBLEM_REF = "#/components/schemas/Problem";

    @Override
    public void filterOpenAPI(OpenAPI api) {
        BenchConfig config = ConfigProvider.getConfig().unwrap(SmallRyeConfig.class).getConfigMapping(BenchConfig.class);
        api.getComponents().addSchema("Problem", problemSchema()).addSchema("OrderRequest", orderSchema());
        if (!config.serveModes()) {
            List.copyOf(api.getPaths().getPathItems().keySet()).stream().filter(path -> !path.startsWith("/delay/"))
                    .forEach(api.getPaths()::removePathItem);
        }
        api.getPaths().getPathItems().forEach((path, item) -> item.getOperations()
                .forEach((method, operation) -> describe(config, path, method, operation)));
    }

    private static void describe(BenchConfig config, String path, PathItem.HttpMethod method, Operation operation) {
        String[] segments = path.substring(1).split("/");
        boolean delayService = segments[0].equals("delay");
        if (!delayService && Arrays.stream(Mode.values()).noneMatch(m -> m.path().equals(segments[0]))) {
            return;   // not one of the service's endpoints (the tests add their own)
        }
        String mode = delayService ? null : segments[0];
        String scenario = delayService ? "delay" : segments.length > 2 ? "order" : segments[1];
        operation.setOperationId((mode == null ? "" : mode + "-") + scenario);
        if (operation.getParameters() != null) {
            operation.getParameters().forEach(parameter -> bound(config, mode, scenario, parameter));
        }
        APIResponses responses = operation.getResponses();
        if (scenario.equals("orders")) {
            var ok = responses.getAPIResponse("200");
            responses.removeAPIResponse("200");
            responses.addAPIResponse("201", ok.description("Created: the order as stored")
                    .addHeader("Location", OASFactory.createHeader().required(true)
                            .description("the new order's path, /{mode}/orders/{id}")
                            .schema(OASFactory.createSchema().addType(SchemaType.STRING)))
                    .addLink("order", OASFactory.createLink().operationId(mode + "-order")
                            .addParameter("id", "$response.body#/orderId")
                            .description("reads the order back; it equals what was sent")));
            problem(responses, 415, "the body is not application/json");
        }
        problem(responses, 400, "a parameter or the body breaks the rules above (type, range, required, planned wait"
                + " beyond the request deadline)");
        if (scenario.equals("order")) {
            problem(responses, 404, "no order has this id");
        }
        problem(responses, 406, "the client accepts neither application/json nor application/problem+json");
        problem(responses, 413, "the declared body is larger than quarkus.http.limits.max-body-size");
        problem(responses, 414, "the request target is longer than bench.max-uri-length");
        problem(responses, 431, "the request headers are larger than bench.max-header-size");
        problem(responses, 500, "an unexpected failure; the server log has the details");
        if (!delayService) {
            problem(responses, 503, "bench.max-in-flight requests of this mode are in progress, a pool or queue is"
                    + " full, or the database did not answer; retry later");
        }
        if (List.of("io", "fanout", "orders", "pinning").contains(scenario)) {
            problem(responses, 502, "the delay service refused the call or failed");
            problem(responses, 504, "the delay service did not answer within the request deadline");
        }
    }

    /** The parameter's schema: the type and range {@link Limits} accepts for this scenario, as configured now. */
    private static void bound(BenchConfig config, String mode, String scenario, Parameter parameter) {
        Object given = parameter.getSchema() == null ? null : parameter.getSchema().getDefaultValue();
        long deadline = config.requestDeadline().toMillis();
        Schema schema = OASFactory.createSchema().addType(SchemaType.INTEGER).format("int32");
        switch (parameter.getName()) {
            case "delay", "ms" -> {
                long most = switch (scenario) {
                    case "slow-query" -> config.dbSocketTimeoutMs() - 1000L;
                    case "orders" -> deadline / 2;
                    case "delay" -> config.maxDelay();
                    default -> deadline;
                };
                range(schema, 0, Math.min(config.maxDelay(), most));
                parameter.description("milliseconds each delay-service call (or the query's SLEEP) waits"
                        + (scenario.equals("io") ? "; calls × delay must be at most " + deadline
                        + " (bench.request-deadline), else 400" : ""));
            }
            case "calls" -> {
                range(schema, 1, scenario.equals("fanout") ? Math.min(config.maxCalls(), config.maxFanoutCalls())
                        : config.maxCalls());
                parameter.description(scenario.equals("fanout") ? "concurrent delay-service calls"
                        : "sequential delay-service calls");
            }
            case "queries" -> range(schema, 1, config.maxQueries());
            case "n" -> range(schema, 1, "reactive".equals(mode) ? Math.min(config.maxN(), config.maxNEventLoop())
                    : config.maxN());
            case "id" -> schema.format("int64").description("an order id; ids that were never issued answer 404");
            case "lock" -> schema.type(List.of(SchemaType.STRING)).format(null)
                    .enumeration(List.of("synchronized", "reentrant"));
            default -> {
                return;
            }
        }
        if (given != null) {
            schema.defaultValue(schema.getType().contains(SchemaType.INTEGER) ? Long.valueOf(given.toString()) : given);
        }
        parameter.schema(schema);
    }

    private static Schema range(Schema schema, long min, long max) {
        return schema.minimum(BigDecimal.valueOf(min)).maximum(BigDecimal.valueOf(max));
    }

    private static void problem(APIResponses responses, int status, String description) {
        responses.addAPIResponse(String.valueOf(status), OASFactory.createAPIResponse().description(description)
                .content(problemContent()));
    }

    private static Content problemContent() {
        return OASFactory.createContent().addMediaType(Problem.MEDIA_TYPE,
                OASFactory.createMediaType().schema(OASFactory.createSchema().ref(PROBLEM_REF)));
    }

    private static Schema problemSchema() {
        Schema text = OASFactory.createSchema().addType(SchemaType.STRING);
        return OASFactory.createSchema().addType(SchemaType.OBJECT)
                .description("RFC 9457 problem details; type is urn:vtvr:problem:<kind>")
                .required(List.of("type", "title", "status"))
                .properties(Map.of("type", text, "title", text, "detail", text, "instance", text,
                        "status", range(OASFactory.createSchema().addType(SchemaType.INTEGER), 400, 599)));
    }

    private static Schema orderSchema() {
        Schema text = OASFactory.createSchema().addType(SchemaType.STRING).minLength(1).maxLength(Limits.MAX_TEXT)
                .pattern(Limits.TEXT_PATTERN)
                .description("1.." + Limits.MAX_TEXT + " Unicode characters, not only spaces, tabs or line breaks;"
                        + " stored and read back exactly");
        return OASFactory.createSchema().addType(SchemaType.OBJECT)
                .description("a JSON object; each member name at most once")
                .required(List.of("customer", "sku", "quantity"))
                .properties(Map.of("customer", text, "sku", text, "quantity", range(OASFactory.createSchema()
                        .addType(SchemaType.INTEGER).format("int32"), Limits.MIN_QUANTITY, Limits.MAX_QUANTITY)));
    }
}
