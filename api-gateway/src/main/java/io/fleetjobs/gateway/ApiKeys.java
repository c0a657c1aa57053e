package io.fleetjobs.gateway;

import io.fleetjobs.store.Principal;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.support.CallerIdentity;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * API keys to callers, through job-store's {@link TenantStore} (the database), each answer (found or
 * not) reused for a short while so that a busy client costs one query per TTL, and a flood of bad keys
 * does not reach the database on every request. A revoked key therefore works on for at most the TTL.
 * Cached by the key's SHA-256, never the key itself.
 */
final class ApiKeys {
    static final int MAX_ENTRIES = 10_000;

    private final TenantStore tenants;
    private final InstantSource clock;
    private final Duration ttl;
    private final ConcurrentHashMap<String, Entry> cache = new ConcurrentHashMap<>();

    ApiKeys(TenantStore tenants, InstantSource clock, Duration ttl) {
        this.tenants = tenants;
        this.clock = clock;
        this.ttl = ttl;
    }

    /** The caller a key belongs to, or empty for an unknown or revoked key. Database errors propagate. */
    Optional<CallerIdentity> authenticate(String key) {
        String digest = digest(key);
        Instant now = clock.instant();
        Entry hit = cache.get(digest);
        if (hit != null && now.isBefore(hit.until())) {
            return hit.caller();
        }
        Optional<CallerIdentity> caller = tenants.authenticate(key).map(ApiKeys::caller);
        if (cache.size() >= MAX_ENTRIES) {
            cache.clear(); // crude, and rare: a burst of distinct keys; the next requests look up again
        }
        cache.put(digest, new Entry(caller, now.plus(ttl)));
        return caller;
    }

    private static CallerIdentity caller(Principal p) {
        return new CallerIdentity(p.tenantId(), p.tenantName(), CallerIdentity.Role.valueOf(p.role().name()));
    }

    private static String digest(String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private record Entry(Optional<CallerIdentity> caller, Instant until) {
    }
}
