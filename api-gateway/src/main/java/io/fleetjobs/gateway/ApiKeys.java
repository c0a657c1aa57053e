package io.fleetjobs.gateway;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.fleetjobs.store.Principal;
import io.fleetjobs.support.CallerIdentity;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * API keys to callers, through job-store's {@code TenantStore} (the database), each answer (found or not) reused
 * for a short while (Caffeine, bounded), so that a busy client costs one query per TTL. A revoked key therefore
 * works on for at most the TTL. Cached by the key's SHA-256, never the key itself.
 *
 * <p>A client that sends key after key the cache has not seen (guessing, or flooding the database with lookups)
 * is held to {@code lookupsPerSecond} lookups per address, with a burst of as many: past it the request is refused
 * ({@link TooManyLookups}, 429 with {@code Retry-After}) before the database is asked. Keys already answered cost
 * no permit, so a client with a working key is never slowed by this: nor are its requests that arrive while its key
 * is being looked up, or together with the one that looks it up (its answer expired, or the gateway just started,
 * under 50 requests at once): the lookup is claimed before its permit is spent, and the others wait for that one
 * lookup instead of each asking the database, and each spending a permit, again.
 */
final class ApiKeys {
    static final long MAX_ENTRIES = 100_000;
    static final long MAX_ADDRESSES = 100_000;

    private final Function<String, Optional<Principal>> lookup;
    /** Answers by the key's digest, and lookups in flight (a future not yet complete; one that fails is dropped). */
    private final AsyncCache<String, Optional<CallerIdentity>> answers;
    private final Cache<String, RateLimiter> perAddress;
    private final RateLimiterConfig limit;
    /** Told of each key that authenticates, by its digest (when it was last used, written off this path). */
    private final Consumer<String> used;

    ApiKeys(Function<String, Optional<Principal>> lookup, InstantSource clock, Duration ttl, int lookupsPerSecond) {
        this(lookup, clock, ttl, lookupsPerSecond, digest -> { });
    }

    ApiKeys(Function<String, Optional<Principal>> lookup, InstantSource clock, Duration ttl, int lookupsPerSecond,
            Consumer<String> used) {
        this.lookup = lookup;
        this.used = used;
        Ticker ticker = () -> {
            var now = clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        };
        this.answers = Caffeine.newBuilder().ticker(ticker).expireAfterWrite(ttl).maximumSize(MAX_ENTRIES).buildAsync();
        this.perAddress = Caffeine.newBuilder().ticker(ticker).expireAfterAccess(Duration.ofMinutes(1))
                .maximumSize(MAX_ADDRESSES).build();
        this.limit = RateLimiterConfig.custom().limitForPeriod(lookupsPerSecond).limitRefreshPeriod(Duration.ofSeconds(1))
                .timeoutDuration(Duration.ZERO).build();
    }

    /** Refused before the lookup: the address sent too many keys the cache did not know. */
    static final class TooManyLookups extends RuntimeException {
        final Duration wait;

        TooManyLookups(Duration wait) {
            super(null, null, false, false);
            this.wait = wait;
        }
    }

    /**
     * The caller a key belongs to, or empty for an unknown or revoked key. Database errors propagate.
     *
     * @throws TooManyLookups when {@code address} is over its lookups
     */
    Optional<CallerIdentity> authenticate(String key, String address) {
        String digest = digest(key);
        Optional<CallerIdentity> caller = null;
        while (caller == null) {
            caller = answer(key, digest, address);
        }
        caller.ifPresent(c -> used.accept(digest));
        return caller;
    }

    /**
     * The key's answer: the cached one, the one of a lookup in flight, or this request's own lookup; null where the
     * lookup this request waited for was refused for another address's permits (it then asks again, on its own).
     */
    private Optional<CallerIdentity> answer(String key, String digest, String address) {
        CompletableFuture<Optional<CallerIdentity>> answer = answers.getIfPresent(digest);
        boolean mine = false;
        if (answer == null) {
            // the lookup is claimed before a permit is spent: requests arriving together wait for the one that won
            CompletableFuture<Optional<CallerIdentity>> claim = new CompletableFuture<>();
            answer = answers.asMap().putIfAbsent(digest, claim);
            if (answer == null) {
                answer = claim;
                mine = true;
                RateLimiter limiter = perAddress.get(address == null ? "" : address, a -> RateLimiter.of("lookups-" + a, limit));
                if (!limiter.acquirePermission()) {
                    long nanos = limiter instanceof AtomicRateLimiter atomic ? atomic.getDetailedMetrics().getNanosToWait() : 1_000_000_000L;
                    answers.asMap().remove(digest, claim);
                    claim.completeExceptionally(new TooManyLookups(Duration.ofSeconds(Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L))));
                } else {
                    try {
                        claim.complete(lookup.apply(key).map(ApiKeys::caller));
                    } catch (RuntimeException | Error e) {
                        claim.completeExceptionally(e);
                    }
                }
            }
        }
        try {
            return answer.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof TooManyLookups && !mine) {
                return null;
            }
            throw e.getCause() instanceof RuntimeException r ? r : e; // a database error, as the lookup threw it
        }
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
}
