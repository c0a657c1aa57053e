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

    @Test
    void aJobAdmittedOnSubmitIsWhatAdmissionWouldHaveMadeOfIt() {
        JobRecord job = ((Submission.Accepted) f.jobs.submit(f.tenant, StoreFixture.aJob("inline"), "inline-1", true)).job();
        JobRecord stored = f.jobs.get(job.id()).orElseThrow();

        assertThat(stored).as("the answer is the row as stored").isEqualTo(job);
        assertThat(stored.state()).isEqualTo(JobState.QUEUED);
        assertThat(stored.version()).isEqualTo(2);
        assertThat(stored.stateReason()).isEqualTo("admitted; waiting for placement");
        Histories.assertWellFormed(f, stored, "admitted on submit");
        assertThat(f.jobs.history(job.id())).extracting(HistoryEntry::to).containsExactly(JobState.SUBMITTED, JobState.QUEUED);
        assertThat(f.eventPayloads(job.id()))
                .satisfiesExactly(
                        e -> assertThat(e).contains("\"jobVersion\":1", "\"to\":\"SUBMITTED\""),
                        e -> assertThat(e).contains("\"jobVersion\":2", "\"from\":\"SUBMITTED\"", "\"to\":\"QUEUED\""));

        assertThat(f.jobs.admitAll(List.of(job.id()))).as("admission's event finds it admitted").isZero();
        assertThat(f.jobs.submit(f.tenant, StoreFixture.aJob("inline"), "inline-1", true))
                .as("the same key again: the same job").isEqualTo(new Submission.Accepted(stored, false));
    }
}
