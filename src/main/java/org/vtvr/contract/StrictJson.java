package org.vtvr.contract;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.quarkus.jackson.ObjectMapperCustomizer;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.math.BigDecimal;

/**
 * Request bodies are read as the OpenAPI document (JSON Schema) describes them, in one way only: a duplicate member
 * name ({@code {"quantity":5000,"quantity":1}}), which two parsers may read differently, fails to parse; a text must
 * be a JSON string (Jackson's defaults turned {@code false} and {@code 12} into text); a whole number must be one
 * ({@code 2.0} is, as in JSON Schema; {@code 2.5} and {@code "2"} are not, where Jackson cut 2.5 to 2). Each
 * answers 400 problem (ProblemMappers).
 */
@Singleton
public class StrictJson implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        mapper.disable(MapperFeature.ALLOW_COERCION_OF_SCALARS);
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.registerModule(new SimpleModule("strict-json").addDeserializer(Integer.class, new WholeNumber()));
    }

    /** An {@code Integer} from a JSON number with no fractional part that fits an int; anything else fails. */
    static final class WholeNumber extends StdScalarDeserializer<Integer> {

        WholeNumber() {
            super(Integer.class);
        }

        @Override
        public Integer deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (p.currentToken() == JsonToken.VALUE_NUMBER_INT || p.currentToken() == JsonToken.VALUE_NUMBER_FLOAT) {
                BigDecimal value = p.getDecimalValue();
                try {
                    return value.stripTrailingZeros().intValueExact();
                } catch (ArithmeticException e) {
                    return (Integer) ctxt.handleWeirdNumberValue(Integer.class, value, "not a whole number an int holds");
                }
            }
            return (Integer) ctxt.handleUnexpectedToken(Integer.class, p);
        }
    }
}
