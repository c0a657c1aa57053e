package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.JobState;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Admission in batches: only SUBMITTED jobs move, once, with their history and events. */
class AdmitAllTest {
    private static StoreFixture f;

    @BeforeAll
    static void start() {
        f = new StoreFixture(2);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @Test
    void admitsWhatIsStillSubmittedOnce() {
        JobRecord a = f.submitted("a");
        JobRecord b = f.submitted("b");
        JobRecord canceled = f.jobs.transition(f.submitted("c"), Transition.cancel("canceled by user")).orElseThrow();

        assertThat(f.jobs.admitAll(List.of(a.id(), b.id(), canceled.id(), UUID.randomUUID(), a.id()))).isEqualTo(2);
        assertThat(f.jobs.admitAll(List.of(a.id(), b.id()))).as("a redelivery changes nothing").isZero();

        for (JobRecord job : List.of(a, b)) {
            JobRecord now = f.jobs.get(job.id()).orElseThrow();
            assertThat(now.state()).isEqualTo(JobState.QUEUED);
            assertThat(now.version()).isEqualTo(2);
            Histories.assertWellFormed(f, now, "admitted");
        }
        assertThat(f.jobs.get(canceled.id()).orElseThrow().state()).isEqualTo(JobState.CANCELED);
    }
}
