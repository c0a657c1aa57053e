package io.fleetjobs.scheduler.core;

import java.time.Duration;
import java.time.Instant;

/**
 * When a job that no machine could ever host is looked at again: {@code first} from now the first time it is found so;
 * once more ({@code again}: its row already said so, or no machine is registered), a quarter of its age, between
 * {@code again} and {@code max}. A job waiting for a GPU model the fleet lacks thus costs a claim every few minutes,
 * not every cycle, and one that waited for hours is looked at every {@code max}. A join wakes such jobs at once. Pure.
 *
 * @param first the first backoff ({@code jobs.scheduler.retry-never-fits})
 * @param again the least backoff after that ({@code retry-still-never-fits})
 * @param max   the longest backoff ({@code retry-never-fits-max})
 */
public record NeverFitsBackoff(Duration first, Duration again, Duration max) {
    public Instant until(Instant now, Instant createdAt, boolean foundSoBefore) {
        if (!foundSoBefore) {
            return now.plus(first);
        }
        Duration quarterOfAge = createdAt == null || createdAt.isAfter(now) ? Duration.ZERO
                : Duration.between(createdAt, now).dividedBy(4);
        Duration backoff = quarterOfAge.compareTo(again) < 0 ? again : quarterOfAge.compareTo(max) > 0 ? max : quarterOfAge;
        return now.plus(backoff);
    }
}
