package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.ReportFence.RecordedAttempt;
import io.fleetjobs.model.ReportFence.Verdict;
import io.fleetjobs.model.agent.AttemptReport;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReportFenceTest {
    private static final UUID JOB = UUID.fromString("00000000-0000-0000-0000-000000000001");

    @ParameterizedTest(name = "{0} of epoch {1} from {2}, recorded {3} of epoch {4} on {5}: {6}")
    @CsvSource({
            // reported state, epoch, machine, recorded state (blank: no such attempt), epoch, machine, verdict
            "RUNNING,   1, m1, ,          , ,  STALE_UNKNOWN_ATTEMPT",
            "SUCCEEDED, 1, m1, SCHEDULED, 2, m1, STALE_OTHER_EPOCH",     // leased again since
            "SUCCEEDED, 3, m1, RUNNING,   2, m1, STALE_OTHER_EPOCH",
            "FAILED,    1, m2, RUNNING,   1, m1, STALE_OTHER_MACHINE",   // a machine reporting on another's attempt
            "FAILED,    1,   , RUNNING,   1, m1, APPLY",                 // the platform's own end names no machine
            "RUNNING,   1, m1, RUNNING,   1, m1, DUPLICATE",
            "RUNNING,   1, m1, SUCCEEDED, 1, m1, DUPLICATE",             // a late start never moves an end back
            "FAILED,    1, m1, SUCCEEDED, 1, m1, DUPLICATE",
            "CANCELED,  1, m1, CANCELED,  1, m1, DUPLICATE",
            "RUNNING,   1, m1, SCHEDULED, 1, m1, APPLY",
            "SUCCEEDED, 1, m1, SCHEDULED, 1, m1, APPLY",                 // a quick job: its end came first
            "CANCELED,  1, m1, RUNNING,   1, m1, APPLY"})
    void aReportIsCheckedAgainstTheAttemptAsItIs(AttemptState state, long epoch, String machine, AttemptState recorded,
            Long recordedEpoch, String recordedMachine, Verdict verdict) {
        AttemptReport report = new AttemptReport(JOB, 1, epoch, machine, state, null, null, null, null, null, null);
        RecordedAttempt attempt = recorded == null ? null : new RecordedAttempt(recorded, recordedEpoch, recordedMachine);
        assertThat(ReportFence.classify(report, attempt)).isEqualTo(verdict);
        assertThat(verdict.isStale()).isEqualTo(verdict.name().startsWith("STALE"));
    }
}
