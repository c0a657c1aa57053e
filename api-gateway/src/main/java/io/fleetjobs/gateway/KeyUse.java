package io.fleetjobs.gateway;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fleetjobs.store.ApiKeyStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When each API key was last used, written off the request path: a use is noted in memory (at most once per
 * {@code every} per key; the others cost one cache lookup) and {@link #flush()} writes what was noted in one
 * statement. The time stored is therefore late by up to {@code every} plus the flush interval; a write that fails
 * is dropped (the next use notes it again once {@code every} has passed). Keys by their SHA-256, never in clear.
 */
final class KeyUse {
    private static final Logger log = LoggerFactory.getLogger(KeyUse.class);

    private final ApiKeyStore store;
    private final InstantSource clock;
    /** Keys noted within {@code every}: present means "do not note again yet". */
    private final Cache<String, Boolean> recent;
    private final Map<String, Instant> pending = new ConcurrentHashMap<>();

    KeyUse(ApiKeyStore store, InstantSource clock, Duration every) {
        this.store = store;
        this.clock = clock;
        this.recent = Caffeine.newBuilder().ticker(() -> {
            Instant now = clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }).expireAfterWrite(every).maximumSize(ApiKeys.MAX_ENTRIES).build();
    }

    /** The key with this digest authenticated a request now. */
    void used(String digest) {
        if (recent.asMap().putIfAbsent(digest, Boolean.TRUE) == null) {
            pending.put(digest, clock.instant());
        }
    }

    /** Writes the uses noted since the last flush. @return how many keys it wrote */
    int flush() {
        if (pending.isEmpty()) {
            return 0;
        }
        Map<String, Instant> batch = new HashMap<>();
        for (String digest : pending.keySet()) {
            Instant at = pending.remove(digest);
            if (at != null) {
                batch.put(digest, at);
            }
        }
        try {
            return store.recordUse(batch);
        } catch (RuntimeException e) {
            log.warn("cannot record when {} API keys were last used: {}", batch.size(), e.getMessage());
            batch.keySet().forEach(recent::invalidate);
            return 0;
        }
    }
}
