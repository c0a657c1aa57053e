package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.PlacementStrategy;
import io.fleetjobs.scheduler.core.PendingJob;
import io.fleetjobs.store.ClaimedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ClaimedJobsTest {
    private static final Duration PERIOD = Duration.ofMinutes(11);

    private static ClaimedJob gang(Instant created) {
        return new ClaimedJob(UUID.randomUUID(), UUID.randomUUID(), 1, 0, 1000, 1024, 8, null, null, Map.of(),
                PlacementStrategy.BINPACK, created, false, 4, null, false, null);
    }

    private static boolean due(ClaimedJob job, Instant now) {
        List<PendingJob> pending = ClaimedJobs.pending(List.of(job), now, SchedulerProperties.defaults().gangHolds());
        return pending.getFirst().gangDue();
    }

    @Test
    void aGangThatWaitedHoldsExceptInTheRestEveryGangTakesTogether() {
        long period = PERIOD.toMillis();
        Instant holdStarts = Instant.ofEpochMilli(1_800_000_000_000L - Math.floorMod(1_800_000_000_000L, period));
        ClaimedJob waitedAnHour = gang(holdStarts.minus(Duration.ofHours(1)));

        assertThat(due(waitedAnHour, holdStarts.plus(Duration.ofMinutes(5)))).isTrue();
        // the jobs behind it get a minute in every eleven: a small job waits for room a gang is collecting no longer
        assertThat(due(waitedAnHour, holdStarts.plus(Duration.ofMinutes(10)).plusSeconds(30))).isFalse();
        assertThat(due(gang(holdStarts.plus(Duration.ofMinutes(4))), holdStarts.plus(Duration.ofMinutes(5))))
                .as("waited a minute: not yet due").isFalse();
    }
}
