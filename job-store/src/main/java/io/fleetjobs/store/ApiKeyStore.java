package io.fleetjobs.store;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/** What an operator sees of a tenant's API keys (never a key or its hash), and when each was last used. */
public final class ApiKeyStore {
    private final JdbcClient jdbc;

    public ApiKeyStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** One key as listed: {@code revokedAt} null while it works; {@code bootstrap} made by JOBS_BOOTSTRAP_ADMIN_TOKEN. */
    public record KeyInfo(UUID id, Principal.Role role, Instant createdAt, Instant lastUsedAt, Instant revokedAt,
            boolean bootstrap) {
    }

    /** A tenant's keys, oldest first. */
    public List<KeyInfo> list(UUID tenantId) {
        return jdbc.sql("""
                        select id, role, created_at, last_used_at, revoked_at, bootstrap from api_keys
                        where tenant_id = :t order by created_at, id""")
                .param("t", tenantId)
                .query((rs, n) -> new KeyInfo(rs.getObject(1, UUID.class), Principal.Role.valueOf(rs.getString(2)),
                        JobRows.instant(rs, 3), JobRows.instant(rs, 4), JobRows.instant(rs, 5), rs.getBoolean(6)))
                .list();
    }

    /**
     * Records uses of keys, each by the hex SHA-256 of the key (as the gateway caches it), in one statement; a use
     * older than the one recorded changes nothing. @return the keys updated
     */
    public int recordUse(Map<String, Instant> lastUseByDigest) {
        if (lastUseByDigest.isEmpty()) {
            return 0;
        }
        String[] digests = lastUseByDigest.keySet().toArray(String[]::new);
        String[] ats = new String[digests.length];
        for (int i = 0; i < digests.length; i++) {
            ats[i] = lastUseByDigest.get(digests[i]).toString();
        }
        return jdbc.sql("""
                        update api_keys k set last_used_at = d.at
                        from unnest(cast(:digests as text[]), cast(cast(:ats as text[]) as timestamptz[])) as d(h, at)
                        where k.key_hash = decode(d.h, 'hex') and (k.last_used_at is null or k.last_used_at < d.at)""")
                .param("digests", digests).param("ats", ats)
                .update();
    }
}
