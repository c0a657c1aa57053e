package io.fleetjobs.model;

import io.fleetjobs.model.agent.AttemptReport;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * What the end of one replica of a gang does, given every replica of the attempt as it stands after that end.
 * While other replicas live, the job waits for them, and a replica that did not succeed ends the others
 * ({@link FailureReason#GANG_MEMBER_FAILED}); when the last replica has ended, the gang ends as a whole: succeeded
 * when every replica succeeded, otherwise as the replica that failed first (not one ended for another's failure)
 * ended, which {@link JobOutcome} turns into a retry of the whole gang or its failure.
 *
 * <pre>
 *  others live   this end        decision
 *  yes           SUCCEEDED       wait
 *  yes           FAILED/CANCELED wait, end the others
 *  no            all SUCCEEDED   conclude: this end (succeeded)
 *  no            some not        conclude: the first replica to fail, as this attempt's end
 * </pre>
 */
public final class GangRule {
    private GangRule() {
    }

    /** One replica of the attempt: live (SCHEDULED, RUNNING) or how it ended. */
    public record Replica(int replica, AttemptState state, Integer exitCode, FailureReason failureReason,
            Instant finishedAt) {
    }

    public sealed interface Decision {
        /** Other replicas still live: the job stays; {@code endOthers}: tell them to stop. */
        record Wait(boolean endOthers) implements Decision {
        }

        /** Every replica has ended: the job follows {@code end}, the end that stands for the whole gang. */
        record Conclude(AttemptReport end) implements Decision {
        }
    }

    public static Decision afterEnd(AttemptReport end, List<Replica> replicas) {
        if (replicas.stream().anyMatch(r -> r.state().isLive())) {
            return new Decision.Wait(end.state() != AttemptState.SUCCEEDED);
        }
        if (replicas.stream().allMatch(r -> r.state() == AttemptState.SUCCEEDED)) {
            return new Decision.Conclude(end);
        }
        Replica first = replicas.stream()
                .filter(r -> r.state() != AttemptState.SUCCEEDED && r.failureReason() != FailureReason.GANG_MEMBER_FAILED)
                .min(Comparator.comparing(Replica::finishedAt, Comparator.nullsLast(Comparator.naturalOrder()))
                        .thenComparingInt(Replica::replica))
                .orElse(null);
        if (first == null) {
            return new Decision.Conclude(end);
        }
        return new Decision.Conclude(new AttemptReport(end.jobId(), end.attempt(), end.epoch(), end.machineId(),
                first.state(), first.exitCode(), first.failureReason(), end.startedAt(), end.finishedAt(), null, null));
    }
}
