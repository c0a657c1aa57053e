package io.fleetjobs.store;

import io.fleetjobs.model.Ids;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Tenants and their API keys. A key is 32 random bytes, shown once; only its SHA-256 is stored
 * (a fast hash is right here: the key has 256 bits of entropy, there is nothing to brute-force).
 */
public final class TenantStore {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final RowMapper<Tenant> TENANT = (rs, n) -> new Tenant(rs.getObject("id", UUID.class),
            rs.getString("name"), rs.getInt("weight"), (Long) rs.getObject("quota_cpu_millis"),
            (Long) rs.getObject("quota_memory_mb"), (Integer) rs.getObject("quota_gpu_count"),
            (Integer) rs.getObject("quota_max_live_jobs"), (Integer) rs.getObject("quota_max_priority"),
            rs.getBoolean("allow_private_webhooks"));

    private final JdbcClient jdbc;
    private final InstantSource clock;

    public TenantStore(JdbcClient jdbc, InstantSource clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    /** Creates a tenant without a quota on live jobs, or returns empty when the name is taken. */
    public Optional<Tenant> create(String name, int weight, Long quotaCpuMillis, Long quotaMemoryMb, Integer quotaGpuCount) {
        return create(name, weight, new Quota(quotaCpuMillis, quotaMemoryMb, quotaGpuCount, null));
    }

    /** What a tenant may hold at once, and the highest priority its jobs may ask for; each null where unlimited. */
    public record Quota(Long cpuMillis, Long memoryMb, Integer gpuCount, Integer maxLiveJobs, Integer maxPriority) {
        public static final Quota NONE = new Quota(null, null, null, null, null);

        /** A quota without a highest priority. */
        public Quota(Long cpuMillis, Long memoryMb, Integer gpuCount, Integer maxLiveJobs) {
            this(cpuMillis, memoryMb, gpuCount, maxLiveJobs, null);
        }
    }

    /** Creates a tenant, or returns empty when the name is taken. */
    public Optional<Tenant> create(String name, int weight, Quota quota) {
        UUID id = Ids.newId(clock);
        Quota q = quota == null ? Quota.NONE : quota;
        int rows = jdbc.sql("""
                        insert into tenants (id, name, weight, quota_cpu_millis, quota_memory_mb, quota_gpu_count,
                                             quota_max_live_jobs, quota_max_priority, created_at)
                        values (:id, :name, :weight, :cpu, :mem, :gpu, :live, :prio, :now) on conflict (name) do nothing""")
                .param("id", id).param("name", name).param("weight", weight)
                .param("cpu", q.cpuMillis()).param("mem", q.memoryMb()).param("gpu", q.gpuCount())
                .param("live", q.maxLiveJobs()).param("prio", q.maxPriority())
                .param("now", JobRows.ts(clock.instant()))
                .update();
        return rows == 1 ? byName(name) : Optional.empty();
    }

    public Optional<Tenant> byName(String name) {
        return jdbc.sql("select * from tenants where name = :name").param("name", name).query(TENANT).optional();
    }

    /** Every tenant, by name. */
    public List<Tenant> list() {
        return jdbc.sql("select * from tenants order by name").query(TENANT).list();
    }

    public Optional<Tenant> byId(UUID id) {
        return jdbc.sql("select * from tenants where id = :id").param("id", id).query(TENANT).optional();
    }

    /**
     * What a tenant's jobs hold on machines now: those SCHEDULED or RUNNING, each replica of a gang counted (what its
     * quota and its fair share are weighed against).
     */
    public record Held(long cpuMillis, long memoryMb, int gpuCount, long jobs) {
        public static final Held NOTHING = new Held(0, 0, 0, 0);
    }

    /**
     * What each tenant holds ({@code tenant_id, cpu, mem, gpu, jobs}), less its {@code group by}: a range of the
     * index by tenant and state for one tenant; the scheduler's fair share reads it for all.
     */
    static final String HELD = """
            select tenant_id, sum(cpu_millis * replicas) as cpu, sum(memory_mb * replicas) as mem,
                   sum(gpu_count * replicas) as gpu, count(*) as jobs
            from jobs where state in ('SCHEDULED', 'RUNNING')""";

    private static final RowMapper<Held> HELD_ROW = (rs, n) -> new Held(rs.getLong("cpu"), rs.getLong("mem"),
            rs.getInt("gpu"), rs.getLong("jobs"));

    /** What every tenant that holds anything holds, by tenant id. */
    public Map<UUID, Held> held() {
        Map<UUID, Held> held = new HashMap<>();
        jdbc.sql(HELD + " group by tenant_id").query(rs -> {
            held.put(rs.getObject("tenant_id", UUID.class), HELD_ROW.mapRow(rs, 0));
        });
        return held;
    }

    /** What one tenant holds. */
    public Held held(UUID tenantId) {
        return jdbc.sql(HELD + " and tenant_id = :t group by tenant_id").param("t", tenantId).query(HELD_ROW).optional()
                .orElse(Held.NOTHING);
    }

    /**
     * Sets a tenant's weight and quota (null: kept as it is; a quota given replaces the old one whole); empty
     * when there is no such tenant. Jobs over a lowered quota stay; new submits wait until the tenant is under it.
     * A quota given wakes the tenant's jobs that were found larger than the quota before (or fitting nowhere for
     * another reason): the scheduler looks at them again at its next cycle instead of after their backoff.
     */
    public Optional<Tenant> update(String name, Integer weight, Quota quota) {
        return update(name, weight, quota, null);
    }

    /** As {@link #update(String, Integer, Quota)}, and whether its webhooks may reach internal addresses (null: kept). */
    public Optional<Tenant> update(String name, Integer weight, Quota quota, Boolean allowPrivateWebhooks) {
        Quota q = quota == null ? Quota.NONE : quota;
        int rows = jdbc.sql("""
                        update tenants set weight = coalesce(cast(:weight as integer), weight),
                            quota_cpu_millis = case when cast(:keep as boolean) then quota_cpu_millis else cast(:cpu as bigint) end,
                            quota_memory_mb = case when cast(:keep as boolean) then quota_memory_mb else cast(:mem as bigint) end,
                            quota_gpu_count = case when cast(:keep as boolean) then quota_gpu_count else cast(:gpu as integer) end,
                            quota_max_live_jobs = case when cast(:keep as boolean) then quota_max_live_jobs else cast(:live as integer) end,
                            quota_max_priority = case when cast(:keep as boolean) then quota_max_priority else cast(:prio as integer) end,
                            allow_private_webhooks = coalesce(cast(:private as boolean), allow_private_webhooks)
                        where name = :name""")
                .param("weight", weight).param("private", allowPrivateWebhooks).param("keep", quota == null).param("cpu", q.cpuMillis())
                .param("mem", q.memoryMb()).param("gpu", q.gpuCount()).param("live", q.maxLiveJobs()).param("prio", q.maxPriority())
                .param("name", name)
                .update();
        if (rows != 1) {
            return Optional.empty();
        }
        Optional<Tenant> tenant = byName(name);
        if (quota != null) {
            tenant.ifPresent(t -> new QueuedJobs(jdbc, clock).wakeUnplaceableOf(t.id()));
        }
        return tenant;
    }

    /** A new key for a tenant; the returned key is the only time it exists in clear. */
    public IssuedKey issueKey(UUID tenantId, Principal.Role role) {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        String key = "fj_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        UUID id = Ids.newId(clock);
        storeKey(id, tenantId, role, key);
        return new IssuedKey(id, key);
    }

    /**
     * Makes {@code key} the bootstrap admin key of tenant {@code tenantName} (created if missing), and revokes every
     * other key an earlier value of the variable made: changing {@code JOBS_BOOTSTRAP_ADMIN_TOKEN} leaves the old key
     * working nowhere. Idempotent; a bootstrap key an operator revoked stays revoked while the variable keeps it.
     */
    public Principal bootstrapAdmin(String tenantName, String key) {
        Tenant tenant = create(tenantName, 1, null, null, null).or(() -> byName(tenantName)).orElseThrow();
        byte[] hash = hash(key);
        jdbc.sql("update api_keys set revoked_at = :now where bootstrap and revoked_at is null and key_hash <> :hash")
                .param("now", JobRows.ts(clock.instant())).param("hash", hash).update();
        jdbc.sql("""
                        insert into api_keys (id, tenant_id, key_hash, role, created_at, bootstrap)
                        values (:id, :tenant, :hash, 'ADMIN', :now, true) on conflict (key_hash) do nothing""")
                .param("id", Ids.newId(clock)).param("tenant", tenant.id()).param("hash", hash)
                .param("now", JobRows.ts(clock.instant()))
                .update();
        return new Principal(tenant.id(), tenant.name(), Principal.Role.ADMIN);
    }

    /** The variable is gone: every key it made is revoked. @return how many were still working */
    public int revokeBootstrapKeys() {
        return jdbc.sql("update api_keys set revoked_at = :now where bootstrap and revoked_at is null")
                .param("now", JobRows.ts(clock.instant())).update();
    }

    /**
     * Succeeds, reading no row, when the tables {@link #authenticate} reads exist; else a
     * {@link org.springframework.dao.DataAccessException} (no schema yet, no database).
     */
    public void checkSchema() {
        jdbc.sql("select count(*) from api_keys k join tenants t on t.id = k.tenant_id where false").query(Long.class).single();
    }

    public Optional<Principal> authenticate(String key) {
        return jdbc.sql("""
                        select t.id, t.name, k.role from api_keys k join tenants t on t.id = k.tenant_id
                        where k.key_hash = :hash and k.revoked_at is null""")
                .param("hash", hash(key))
                .query((rs, n) -> new Principal(rs.getObject(1, UUID.class), rs.getString(2),
                        Principal.Role.valueOf(rs.getString(3))))
                .optional();
    }

    /**
     * Revokes a key of a tenant; true when the tenant has that key (revoked now or before), false when
     * it has no such key. A revoked key authenticates no more.
     */
    public boolean revokeKey(UUID tenantId, UUID keyId) {
        jdbc.sql("update api_keys set revoked_at = :now where id = :id and tenant_id = :tenant and revoked_at is null")
                .param("now", JobRows.ts(clock.instant())).param("id", keyId).param("tenant", tenantId)
                .update();
        return jdbc.sql("select count(*) from api_keys where id = :id and tenant_id = :tenant")
                .param("id", keyId).param("tenant", tenantId).query(Long.class).single() == 1;
    }

    private void storeKey(UUID id, UUID tenantId, Principal.Role role, String key) {
        jdbc.sql("insert into api_keys (id, tenant_id, key_hash, role, created_at) values (:id, :tenant, :hash, :role, :now)")
                .param("id", id).param("tenant", tenantId).param("hash", hash(key)).param("role", role.name())
                .param("now", JobRows.ts(clock.instant()))
                .update();
    }

    static byte[] hash(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public record IssuedKey(UUID id, String key) {
    }
}
