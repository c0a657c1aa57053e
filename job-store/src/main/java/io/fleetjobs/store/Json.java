package io.fleetjobs.store;

import io.fleetjobs.model.JobSpec;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON of what the store keeps (specs, event payloads): keys sorted, so that equal values are
 * equal bytes, which is what the idempotency hash and the outbox rely on.
 */
public final class Json {
    public static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private Json() {
    }

    public static String write(Object value) {
        return MAPPER.writeValueAsString(value);
    }

    public static <T> T read(String json, Class<T> type) {
        return MAPPER.readValue(json, type);
    }

    /** The hash that tells "same request again" from "another request under the same key". */
    public static byte[] specHash(JobSpec spec) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(MAPPER.writeValueAsBytes(spec));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
