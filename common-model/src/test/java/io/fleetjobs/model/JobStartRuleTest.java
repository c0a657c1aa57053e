package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.agent.AttemptReport;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JobStartRuleTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:10:00Z");
    private static final Instant PLACED = Instant.parse("2026-01-01T00:05:00Z");

    @ParameterizedTest(name = "RUNNING report of attempt {0}, job {1} on attempt {2}: starts the job {3}")
    @CsvSource({
            // reported attempt, job state, job attempt, starts the job?
            "2, SCHEDULED, 2, true",
            "2, RUNNING,   2, false",   // started already
            "1, SCHEDULED, 2, false",   // an earlier attempt
            "2, CANCELED,  2, false"})
    void aRunningReportStartsTheJobOfItsAttempt(int attempt, JobState state, int jobAttempt, boolean starts) {
        AttemptReport running = report(attempt, AttemptState.RUNNING, null);
        assertThat(JobStartRule.startsJob(running, new CurrentJob(state, jobAttempt, false, 0, 0, PLACED))).isEqualTo(starts);
    }

    @ParameterizedTest(name = "end of attempt {0} started at {1}, attempt recorded {2}, job {3} on attempt {4}: start at {5}")
    @CsvSource({
            // ended attempt, reported start (blank: none), attempt as recorded, job state, job attempt, start recorded at
            "2, 2026-01-01T00:07:00Z, SCHEDULED, SCHEDULED, 2, 2026-01-01T00:07:00Z",  // as the agent says
            "2, 2026-01-01T00:01:00Z, SCHEDULED, SCHEDULED, 2, 2026-01-01T00:05:00Z",  // not before its placement
            "2, 2026-01-01T00:30:00Z, SCHEDULED, SCHEDULED, 2, 2026-01-01T00:10:00Z",  // nor after now
            "2, ,                     SCHEDULED, SCHEDULED, 2, ",                      // never started (START_FAILED)
            "2, 2026-01-01T00:07:00Z, RUNNING,   RUNNING,   2, ",                      // its start is recorded
            "2, 2026-01-01T00:07:00Z, SCHEDULED, RUNNING,   2, ",
            "1, 2026-01-01T00:07:00Z, SCHEDULED, SCHEDULED, 2, "})                     // an earlier attempt
    void anEndThatCarriesAStartRecordsItFirstAtAClampedTime(int attempt, Instant startedAt, AttemptState recorded,
            JobState state, int jobAttempt, Instant expected) {
        AttemptReport end = report(attempt, AttemptState.SUCCEEDED, startedAt);
        CurrentJob job = new CurrentJob(state, jobAttempt, false, 0, 0, PLACED);
        assertThat(JobStartRule.startBeforeEnd(end, recorded, job, NOW).orElse(null)).isEqualTo(expected);
    }

    private static AttemptReport report(int attempt, AttemptState state, Instant startedAt) {
        return new AttemptReport(UUID.randomUUID(), attempt, 1, "m1", state, null, null, startedAt, null, null, null);
    }
}
