package io.fleetjobs.store;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.RetryRule;
import io.fleetjobs.model.agent.AttemptReport;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.random.RandomGenerator;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Applies what agents report of attempts, from heartbeats and from Kafka alike, with fencing:
 * <ul>
 *   <li>a report of an attempt that does not exist, or with another lease epoch, is {@link Outcome#STALE}: nothing changes;</li>
 *   <li>a report that the attempt's state already reflects (a duplicate, or a RUNNING report after
 *       the end) is {@link Outcome#DUPLICATE}: nothing changes, so a late report never moves a job backwards;</li>
 *   <li>otherwise the attempt moves, its allocation is released when it ends, and the job follows
 *       when the attempt is still the job's current one: RUNNING, SUCCEEDED, CANCELED, or after a
 *       failure, back to QUEUED with a backoff or FAILED, by {@link RetryRule}.</li>
 * </ul>
 * The attempt row is locked first, then the job row (guarded update), then the machine row: the
 * same order for every report, and the scheduler never waits on a job a report holds.
 */
public final class AttemptReports {
    private final JdbcClient jdbc;
    private final JobStore jobs;
    private final RandomGenerator random;
    private final AttemptMetrics metrics;

    public AttemptReports(JdbcClient jdbc, JobStore jobs, RandomGenerator random) {
        this(jdbc, jobs, random, null);
    }

    /** {@code meters}: where attempt endings and retries are counted ({@link AttemptMetrics}); null counts nothing. */
    public AttemptReports(JdbcClient jdbc, JobStore jobs, RandomGenerator random, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.jobs = jobs;
        this.random = random;
        this.metrics = new AttemptMetrics(meters);
    }

    public enum Outcome { APPLIED, DUPLICATE, STALE }

    private record Current(AttemptState state, long epoch, String machineId, long cpuMillis, long memoryMb, int gpuCount) {
    }

    public Outcome apply(AttemptReport report) {
        try (var ignored = JobLogContext.of(report.jobId(), report.attempt(), report.machineId())) {
            return applyInContext(report);
        }
    }

    private Outcome applyInContext(AttemptReport report) {
        return jobs.inTransaction(() -> {
            Optional<Current> found = jdbc.sql("""
                            select state, lease_epoch, machine_id, cpu_millis, memory_mb, gpu_count from attempts
                            where job_id = :job and attempt = :attempt for update""")
                    .param("job", report.jobId()).param("attempt", report.attempt())
                    .query((rs, n) -> new Current(AttemptState.valueOf(rs.getString(1)), rs.getLong(2), rs.getString(3),
                            rs.getLong(4), rs.getLong(5), rs.getInt(6)))
                    .optional();
            if (found.isEmpty() || found.get().epoch() != report.epoch()
                    || (report.machineId() != null && !report.machineId().equals(found.get().machineId()))) {
                return Outcome.STALE;
            }
            Current current = found.get();
            if (!current.state().canMoveTo(report.state())) {
                return Outcome.DUPLICATE;
            }
            Instant now = jobs.clock().instant();
            if (report.state() == AttemptState.RUNNING) {
                jdbc.sql("update attempts set state = 'RUNNING', started_at = :at where job_id = :job and attempt = :attempt")
                        .param("at", JobStore.ts(report.startedAt() == null ? now : report.startedAt()))
                        .param("job", report.jobId()).param("attempt", report.attempt())
                        .update();
                follow(report, job -> job.state() == JobState.SCHEDULED
                        ? Optional.of(Transition.to(JobState.RUNNING, "running on " + current.machineId())) : Optional.empty());
                return Outcome.APPLIED;
            }
            end(report, current, now);
            metrics.attemptEnded(report.state(), report.failureReason());
            follow(report, job -> job.state().isOnMachine() ? Optional.of(jobOutcome(job, report)) : Optional.empty())
                    .filter(t -> t.target() == JobState.QUEUED)
                    .ifPresent(retry -> metrics.retried(report.failureReason() == null ? FailureReason.EXIT_CODE
                            : report.failureReason()));
            return Outcome.APPLIED;
        });
    }

    /** Ends the attempt and releases what it held on its machine. */
    private void end(AttemptReport report, Current current, Instant now) {
        jdbc.sql("""
                        update attempts set state = :state, finished_at = :finished, exit_code = :exit, failure_reason = :reason,
                            started_at = coalesce(started_at, cast(:started as timestamptz)),
                            log_tail_stdout = :stdout, log_tail_stderr = :stderr, released_at = :now, lease_expires_at = null
                        where job_id = :job and attempt = :attempt""")
                .param("state", report.state().name())
                .param("finished", JobStore.ts(report.finishedAt() == null ? now : report.finishedAt()))
                .param("exit", report.exitCode())
                .param("reason", report.failureReason() == null ? null : report.failureReason().name())
                .param("started", report.startedAt() == null ? null : JobStore.ts(report.startedAt()))
                .param("stdout", report.stdoutTail()).param("stderr", report.stderrTail())
                .param("now", JobStore.ts(now))
                .param("job", report.jobId()).param("attempt", report.attempt())
                .update();
        jdbc.sql("""
                        update machines set alloc_cpu_millis = alloc_cpu_millis - :cpu, alloc_memory_mb = alloc_memory_mb - :mem,
                            alloc_gpu_count = alloc_gpu_count - :gpu, capacity_version = capacity_version + 1
                        where id = :id""")
                .param("cpu", current.cpuMillis()).param("mem", current.memoryMb()).param("gpu", current.gpuCount())
                .param("id", current.machineId())
                .update();
    }

    /** What the job does when its current attempt ended as reported. */
    private Transition jobOutcome(JobRecord job, AttemptReport report) {
        if (report.state() == AttemptState.SUCCEEDED) {
            return Transition.to(JobState.SUCCEEDED, "exited with code 0").outcome(report.exitCode(), null);
        }
        if (report.state() == AttemptState.CANCELED || job.cancelRequested()) {
            return Transition.to(JobState.CANCELED, "canceled by user; the attempt was stopped")
                    .outcome(report.exitCode(), null);
        }
        FailureReason reason = report.failureReason() == null ? FailureReason.EXIT_CODE : report.failureReason();
        RetryRule.Decision decision = RetryRule.decide(job.spec().retry(), reason, report.exitCode(), job.userFailures(),
                job.infraFailures(), jobs.clock().instant(), random);
        return switch (decision) {
            case RetryRule.Decision.Retry retry -> Transition.to(JobState.QUEUED, retry.reason())
                    .outcome(report.exitCode(), reason).offMachine().notBefore(retry.notBefore())
                    .spend(retry.spendUser(), retry.spendInfra());
            case RetryRule.Decision.Fail fail -> Transition.to(JobState.FAILED, fail.reason())
                    .outcome(report.exitCode(), reason);
        };
    }

    /**
     * Moves the job along, if the reported attempt is still its current one; re-reads when another writer wins.
     *
     * @return the transition made, if any
     */
    private Optional<Transition> follow(AttemptReport report,
            java.util.function.Function<JobRecord, Optional<Transition>> decide) {
        for (int tries = 0; tries < 10; tries++) {
            JobRecord job = jobs.get(report.jobId()).orElse(null);
            if (job == null || job.attempt() != report.attempt()) {
                return Optional.empty();
            }
            Optional<Transition> change = decide.apply(job);
            if (change.isEmpty() || jobs.transition(job, change.get()).isPresent()) {
                return change;
            }
        }
        throw new IllegalStateException("job " + report.jobId() + " kept changing while applying a report");
    }

    /**
     * Ends every live attempt on a machine as {@code reason} (its agent restarted, or the machine was
     * lost): each through the same fenced path as an agent's report.
     */
    public int endLiveAttempts(String machineId, FailureReason reason) {
        List<AttemptReport> live = jdbc.sql("""
                        select job_id, attempt, lease_epoch from attempts
                        where machine_id = :m and state in ('SCHEDULED', 'RUNNING')""")
                .param("m", machineId)
                .query((rs, n) -> new AttemptReport(rs.getObject(1, UUID.class), rs.getInt(2), rs.getLong(3), machineId,
                        AttemptState.FAILED, null, reason, null, null, null, null))
                .list();
        int ended = 0;
        for (AttemptReport r : live) {
            if (apply(r) == Outcome.APPLIED) {
                ended++;
            }
        }
        return ended;
    }
}
