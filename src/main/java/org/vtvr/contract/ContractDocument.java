package org.vtvr.contract;

import io.quarkus.smallrye.openapi.OpenApiFilter;
import io.smallrye.config.SmallRyeConfig;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.media.Content;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;
import org.vtvr.api.OrderRequest;
import org.vtvr.config.BenchConfig;
import org.vtvr.api.DelayReply;
import org.vtvr.error.Problem;
import org.vtvr.web.CatalogueResource;
import org.vtvr.scenario.Mode;
import org.vtvr.scenario.Param;
import org.vtvr.scenario.Scenario;

import java.math.BigDecimal;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Completes the generated OpenAPI document at start-up with what the annotations cannot say: each parameter's type,
 * bounds and default from the scenario catalogue ({@link Scenario}, {@link Param}) and the running configuration
 * ({@link BenchConfig}), the same definitions {@code Limits} checks; the order body's rules ({@link OrderRequest});
 * 201 + {@code Location} and the link to the order's read-back for checkout;
 * and every problem answer an operation can give.
 */
@OpenApiFilter(OpenApiFilter.RunStage.RUN)
public class ContractDocument implements OASFilter {

    private static final String PROBLEM_REF = "#/components/schemas/Problem";

    @Override
    public void filterOpenAPI(OpenAPI api) {
        BenchConfig config = ConfigProvider.getConfig().unwrap(SmallRyeConfig.class).getConfigMapping(BenchConfig.class);
        api.getComponents().addSchema("Problem", problemSchema()).addSchema("OrderRequest", orderSchema());
        // GET /scenarios: a number parameter has no choices, a word no bounds, the order id neither max nor default
        Schema catalogueParameter = api.getComponents().getSchemas().get("Parameter");
        if (catalogueParameter != null) {
            catalogueParameter.getProperties().forEach((name, property) -> {
                if (!name.equals("name") && property.getType() != null && !property.getType().contains(SchemaType.NULL)) {
                    property.addType(SchemaType.NULL);
                }
            });
        }
        if (!config.serveModes()) {
            List.copyOf(api.getPaths().getPathItems().keySet()).stream().filter(path -> !path.startsWith(DelayReply.PATH + "/"))
                    .forEach(api.getPaths()::removePathItem);
        }
        api.getPaths().getPathItems().forEach((path, item) -> item.getOperations()
                .forEach((method, operation) -> describe(config, path, operation)));
    }

    private static void describe(BenchConfig config, String path, Operation operation) {
        Mode mode = null;
        Scenario scenario = null;
        for (Scenario candidate : Scenario.values()) {
            for (Mode m : candidate.modes()) {
                if (path.equals("/" + m.path() + candidate.path())) {
                    mode = m;
                    scenario = candidate;
                }
            }
        }
        boolean delayService = path.equals(DelayReply.PATH + "/{ms}");
        boolean catalogue = path.equals(CatalogueResource.PATH);
        if (scenario == null && !delayService && !catalogue) {
            return;   // not one of the service's endpoints (the tests add their own)
        }
        operation.setOperationId(scenario == null ? path.substring(1).replaceAll("/.*", "") : mode.path() + "-" + scenario.id());
        if (operation.getParameters() != null) {
            for (Parameter parameter : operation.getParameters()) {
                bound(config, mode, scenario, parameter);
            }
        }
        APIResponses responses = operation.getResponses();
        if (scenario == Scenario.CHECKOUT) {
            var ok = responses.getAPIResponse("200");
            responses.removeAPIResponse("200");
            responses.addAPIResponse("201", ok.description("Created: the order as stored")
                    .addHeader("Location", OASFactory.createHeader().required(true)
                            .description("the new order's path, /{mode}/orders/{id}")
                            .schema(OASFactory.createSchema().addType(SchemaType.STRING)))
                    .addLink("order", OASFactory.createLink().operationId(mode.path() + "-" + Scenario.ORDER.id())
                            .addParameter(Param.ID.key(), "$response.body#/orderId")
                            .description("reads the order back; it equals what was sent")));
            problem(responses, 415, "the body is not application/json");
        }
        problem(responses, 400, "a parameter or the body breaks the rules above (type, range, required, planned wait"
                + " beyond the request deadline)");
        if (scenario == Scenario.ORDER) {
            problem(responses, 404, "no order has this id");
        }
        problem(responses, 406, "the client accepts neither application/json nor application/problem+json");
        problem(responses, 413, "the declared body is larger than quarkus.http.limits.max-body-size");
        problem(responses, 414, "the request target is longer than bench.max-uri-length");
        problem(responses, 431, "the request headers are larger than bench.max-header-size");
        problem(responses, 500, "an unexpected failure; the server log has the details");
        if (scenario != null) {
            problem(responses, 503, "bench.max-in-flight requests of this mode are in progress, a pool or queue is"
                    + " full, or the database did not answer; retry later");
        }
        if (EnumSet.of(Scenario.IO, Scenario.FANOUT, Scenario.CHECKOUT, Scenario.PINNING, Scenario.WORKLOAD)
                .contains(scenario)) {
            problem(responses, 502, "the delay service refused the call or failed");
            problem(responses, 504, "the delay service did not answer within the request deadline"
                    + (mode == Mode.WORKER ? ", or the request was still waiting for a worker thread at its deadline" : ""));
        } else if (scenario != null && mode == Mode.WORKER) {
            problem(responses, 504, "the request was still waiting for a worker thread at its deadline"
                    + " (bench.request-deadline, from its arrival)");
        }
    }

    /**
     * The parameter's schema: the catalogue's range ({@link Param}) narrowed where {@code Limits} checks more for
     * this scenario (the request deadline, fanout's share of connections, slow-query's socket timeout, the event
     * loop's n), as configured now; the default is the catalogue's.
     */
    private static void bound(BenchConfig config, Mode mode, Scenario scenario, Parameter parameter) {
        Param param = scenario == null ? Param.DELAY   // the delay service's {ms} is a delay
                : scenario.args().stream().map(Scenario.Arg::param).filter(p -> p.key().equals(parameter.getName()))
                        .findFirst().orElse(null);
        if (param == null) {
            return;
        }
        long deadline = config.requestDeadline().toMillis();
        Schema schema = OASFactory.createSchema();
        if (!param.choices().isEmpty()) {
            schema.addType(SchemaType.STRING).enumeration(List.copyOf(param.choices()));
        } else if (param == Param.ID) {
            schema.addType(SchemaType.INTEGER).format("int64");
            parameter.description("an order id; ids that were never issued answer 404");
        } else {
            long max = param.max(config);
            if (param == Param.DELAY && scenario != null) {
                max = Math.min(max, switch (scenario) {
                    case SLOW_QUERY -> config.dbSocketTimeoutMs() - 1000L;
                    case CHECKOUT -> deadline / 2;   // two delay calls
                    default -> deadline;
                });
                parameter.description("milliseconds each delay-service call (or the query's SLEEP) waits"
                        + switch (scenario) {
                            case IO -> "; calls × delay must be at most " + deadline
                                    + " (bench.request-deadline), else 400";
                            case WORKLOAD -> "; calls × delay, plus delay when fanout > 0, must be at most "
                                    + deadline + " (bench.request-deadline), else 400";
                            default -> "";
                        });
            }
            if (param == Param.CALLS && scenario == Scenario.FANOUT) {
                max = Math.min(max, config.maxFanoutCalls());
            }
            if (param.sizesKernel() && mode == Mode.REACTIVE) {
                max = Math.min(max, config.maxNEventLoop());
            }
            range(schema.addType(SchemaType.INTEGER).format("int32"), param.min(), max);
        }
        String given = scenario == null ? null : scenario.args().stream().filter(arg -> arg.param() == param)
                .map(Scenario.Arg::defaultValue).filter(Objects::nonNull).findFirst().orElse(null);
        if (given != null) {
            schema.defaultValue(param.choices().isEmpty() ? (Object) Long.valueOf(given) : given);
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
        Schema text = OASFactory.createSchema().addType(SchemaType.STRING).minLength(1).maxLength(OrderRequest.MAX_TEXT)
                .pattern(OrderRequest.TEXT_PATTERN)
                .description("1.." + OrderRequest.MAX_TEXT + " Unicode characters, not only spaces, tabs or line breaks;"
                        + " stored and read back exactly");
        return OASFactory.createSchema().addType(SchemaType.OBJECT)
                .description("a JSON object; each member name at most once")
                .required(List.of("customer", "sku", "quantity"))
                .properties(Map.of("customer", text, "sku", text, "quantity", range(OASFactory.createSchema()
                        .addType(SchemaType.INTEGER).format("int32"), OrderRequest.MIN_QUANTITY, OrderRequest.MAX_QUANTITY)));
    }
}
