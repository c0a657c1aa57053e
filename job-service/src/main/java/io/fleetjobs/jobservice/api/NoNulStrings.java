package io.fleetjobs.jobservice.api;

import io.fleetjobs.model.StorableText;
import org.springframework.stereotype.Component;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.KeyDeserializer;
import tools.jackson.databind.deser.jdk.StringDeserializer;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.module.SimpleModule;

/**
 * Refuses the NUL character (U+0000, {@code \u0000} in JSON) in every string and object key of a request: PostgreSQL's
 * text cannot hold it, so a spec with one got as far as the insert and failed there with a 500. Refused while the
 * body is read, where the field is known: a 400 naming it ({@link ProblemHandler}). Registered with the JSON mapper
 * as a Jackson module (a bean).
 */
@Component
final class NoNulStrings extends SimpleModule {
    static final String MESSAGE = StorableText.NUL_REFUSED;

    NoNulStrings() {
        super("no-nul-strings");
        addDeserializer(String.class, new Values());
        addKeyDeserializer(String.class, new Keys());
    }

    static boolean hasNul(String text) {
        return StorableText.hasNul(text);
    }

    private static final class Values extends StringDeserializer {
        @Override
        public String deserialize(JsonParser parser, DeserializationContext context) {
            String value = super.deserialize(parser, context);
            if (hasNul(value)) {
                throw InvalidFormatException.from(parser, MESSAGE, value, String.class);
            }
            return value;
        }
    }

    private static final class Keys extends KeyDeserializer {
        @Override
        public Object deserializeKey(String key, DeserializationContext context) {
            if (hasNul(key)) {
                throw context.weirdKeyException(String.class, key, MESSAGE);
            }
            return key;
        }
    }
}
