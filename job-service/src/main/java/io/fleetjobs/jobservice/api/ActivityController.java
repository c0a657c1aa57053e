package io.fleetjobs.jobservice.api;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fleetjobs.model.JobState;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.support.CallerIdentity;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RestController;

/**
 * The last hour at a glance, from the jobs' history: how many changes entered each state, in five-minute buckets,
 * and placements a second over the last minute. A tenant sees its own jobs; an admin, every tenant's.
 *
 * <p>Each caller's answer is read at most once per {@code jobs.activity.cache-ttl} (5 s) in each instance, and
 * callers that ask while it is read wait for that one read: a read costs what the caller's last hour holds (about
 * a second of PostgreSQL for a million changes), and a tenant may call at its rate limit, 200 a second.
 */
@RestController
@Tag(name = "jobs")
class ActivityController {
    static final Duration WINDOW = Duration.ofHours(1);
    static final int BUCKET_SECONDS = 300;
    /** Stands for an admin's caller in the cache: every tenant's activity. */
    private static final UUID EVERY_TENANT = new UUID(0, 0);
    private final JobStore store;
    private final Cache<UUID, Activity> answers;

    ActivityController(JobStore store, @Value("${jobs.activity.cache-ttl:5s}") Duration cacheTtl) {
        this.store = store;
        this.answers = Caffeine.newBuilder().expireAfterWrite(cacheTtl).maximumSize(10_000).build();
    }

    /** @param entered changes that entered each state in the bucket (a job placed twice counts twice) */
    record Bucket(Instant start, Map<JobState, Long> entered) {
    }

    /** @param placementsPerSecond changes into SCHEDULED over the last minute, a second */
    record Activity(long windowSeconds, int bucketSeconds, List<Bucket> buckets, double placementsPerSecond) {
    }

    @Operation(operationId = "getActivity", summary = "The last hour's changes by state, and placements a second")
    @GetMapping("/api/v1/activity")
    Activity activity(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller) {
        UUID whose = caller.isAdmin() ? null : caller.tenantId();
        return answers.get(whose == null ? EVERY_TENANT : whose, key -> read(whose));
    }

    private Activity read(UUID whose) {
        List<Bucket> buckets = new ArrayList<>();
        store.activity(whose, WINDOW, BUCKET_SECONDS)
                .forEach((start, entered) -> buckets.add(new Bucket(Instant.ofEpochSecond(start), entered)));
        long lastMinute = store.activity(whose, Duration.ofMinutes(1), 60).values().stream()
                .mapToLong(entered -> entered.getOrDefault(JobState.SCHEDULED, 0L)).sum();
        return new Activity(WINDOW.toSeconds(), BUCKET_SECONDS, buckets, lastMinute / 60.0);
    }
}
