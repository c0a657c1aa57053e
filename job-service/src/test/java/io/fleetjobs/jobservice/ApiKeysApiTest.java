package io.fleetjobs.jobservice;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.store.ApiKeyStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/** An operator lists a tenant's keys: id, role, created, last used, revoked; never a key or its hash. */
class ApiKeysApiTest extends JobServiceTestBase {
    @Autowired
    ApiKeyStore keys;

    @Test
    void keysAreListedWithoutTheirSecretWithWhenLastUsedAndWhetherRevoked() throws Exception {
        var quinn = newTenant("quinn");
        var first = admin.post("/api/v1/admin/tenants/quinn/api-keys", "{}");
        var second = admin.post("/api/v1/admin/tenants/quinn/api-keys", "{}");
        assertThat(admin.delete("/api/v1/admin/tenants/quinn/api-keys/" + second.field("id")).status()).isEqualTo(204);
        Instant used = Instant.parse("2026-05-01T12:00:00Z");
        String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(first.field("key").getBytes(StandardCharsets.UTF_8)));
        assertThat(keys.recordUse(Map.of(digest, used))).as("as the gateway records it").isEqualTo(1);

        var listed = admin.get("/api/v1/admin/tenants/quinn/api-keys");
        assertThat(listed.status()).isEqualTo(200);
        JsonNode items = listed.json().get("items");
        assertThat(items.size()).isEqualTo(2);
        JsonNode a = items.get(0);
        assertThat(a.get("id").asString()).isEqualTo(first.field("id"));
        assertThat(a.get("role").asString()).isEqualTo("USER");
        assertThat(a.get("createdAt").isNull()).isFalse();
        assertThat(Instant.parse(a.get("lastUsedAt").asString())).isEqualTo(used);
        assertThat(a.get("revoked").asBoolean()).isFalse();
        JsonNode b = items.get(1);
        assertThat(b.get("id").asString()).isEqualTo(second.field("id"));
        assertThat(b.get("revoked").asBoolean()).isTrue();
        assertThat(b.get("revokedAt").isNull()).isFalse();
        assertThat(b.get("lastUsedAt").isNull()).isTrue();
        assertThat(listed.body()).as("no secret in any form").doesNotContain(first.field("key"), second.field("key"), digest)
                .doesNotContain("\"key\"", "hash");

        assertThat(keys.recordUse(Map.of(digest, used.minusSeconds(60)))).as("an older use changes nothing").isZero();
        assertThat(admin.get("/api/v1/admin/tenants/nobody-here/api-keys").status()).isEqualTo(404);
        assertThat(quinn.get("/api/v1/admin/tenants/quinn/api-keys").status()).isEqualTo(403);
    }
}
