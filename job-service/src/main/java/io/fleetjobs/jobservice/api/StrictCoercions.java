package io.fleetjobs.jobservice.api;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.stereotype.Component;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.type.LogicalType;

/**
 * Two of Jackson's lenient coercions turned off for every request body: an empty string where a number, a boolean or
 * an object is asked for was read as leaving the field out ({@code {"weight": ""}} answered 200 and changed nothing;
 * {@code {"quota": {"cpu": ""}}} replaced a tenant's quota with none), and a number where a boolean is asked for was read
 * as one ({@code 0} as false). Both are now a 400 naming the field ({@link ProblemHandler}), as any other wrong type;
 * so is a string where a number or a boolean is asked for ({@code "priority": "3"} was read as 3), and a field given twice
 * in one object (the last one won: what a proxy or a log that reads the first sees is not what was stored).
 */
@Component
final class StrictCoercions implements JsonMapperBuilderCustomizer {
    @Override
    public void customize(JsonMapper.Builder builder) {
        builder.withCoercionConfigDefaults(c -> c.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail))
                .withCoercionConfig(LogicalType.Boolean, c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.String, CoercionAction.Fail))
                .withCoercionConfig(LogicalType.Integer, c -> c.setCoercion(CoercionInputShape.String, CoercionAction.Fail))
                .withCoercionConfig(LogicalType.Float, c -> c.setCoercion(CoercionInputShape.String, CoercionAction.Fail))
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
    }
}
