package io.fleetjobs.store;

import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Jobs, as the services see them: submit, read, change. Every change goes through {@link JobWrites}
 * (guarded update, history row, event) in one transaction: the caller's when there is one, else a
 * transaction of its own.
 *
 * <p>A guarded update that finds nothing means another writer won. That is a normal outcome:
 * {@link #transition} returns empty, and the caller re-reads and decides again.
 */
public final class JobStore {
    private final TransactionTemplate tx;
    private final InstantSource clock;
    private final JobWrites writes;
    private final JobSubmissions submissions;
    private final JobReads reads;

    public JobStore(JdbcClient jdbc, PlatformTransactionManager transactions, InstantSource clock, MeterRegistry meters) {
        this(jdbc, transactions, clock, meters, () -> { });
    }

    /**
     * @param eventsCommitted called after each commit that wrote history rows, which are the events the relay
     *     publishes (e.g. to wake the relay at once instead of at its next poll)
     */
    public JobStore(JdbcClient jdbc, PlatformTransactionManager transactions, InstantSource clock, MeterRegistry meters,
            Runnable eventsCommitted) {
        MeterRegistry registry = meters == null ? new SimpleMeterRegistry() : meters;
        this.tx = new TransactionTemplate(transactions);
        this.clock = clock;
        this.writes = new JobWrites(jdbc, clock, registry, eventsCommitted);
        this.submissions = new JobSubmissions(jdbc, clock, writes, registry);
        this.reads = new JobReads(jdbc);
    }

    public InstantSource clock() {
        return clock;
    }

    /** Runs {@code work} in a transaction (joining the caller's, if any). */
    public <T> T inTransaction(Supplier<T> work) {
        return tx.execute(status -> work.get());
    }

    /** The door, for the other writers of this package (placement, reports). */
    JobWrites writes() {
        return writes;
    }

    JobReads reads() {
        return reads;
    }

    /**
     * Writes a new job SUBMITTED (version 1) with its first history row, which is also its event, for admission
     * to move on to QUEUED in a later transaction. With an idempotency key, a second submit with the same key
     * returns the first job (same spec) or a conflict (another spec), also when both race: the unique key makes
     * the loser wait for the winner's commit. A job of a priority over its tenant's highest
     * ({@link Tenant#maxPriority()}) gets {@link Submission.PriorityOverQuota}, and a tenant at its quota of live
     * jobs ({@link Tenant#maxLiveJobs()}) gets {@link Submission.OverQuota}; neither writes anything. A key already
     * used answers as before, past either limit too.
     */
    public Submission submit(UUID tenantId, JobSpec spec, String idempotencyKey) {
        return submit(tenantId, spec, idempotencyKey, false);
    }

    /**
     * Like {@link #submit(UUID, JobSpec, String)}; with {@code admit}, the job is admitted in the same
     * transaction: written QUEUED (version 2) with both history rows and both events (SUBMITTED, then
     * QUEUED), as if admission had moved it at once, without the round trip through the event relay, Kafka
     * and a second transaction that rewrites the row.
     */
    public Submission submit(UUID tenantId, JobSpec spec, String idempotencyKey, boolean admit) {
        return inTransaction(() -> submissions.submit(tenantId, spec, idempotencyKey, admit));
    }

    /**
     * Admits those of these jobs that are still SUBMITTED, in one transaction and a few statements.
     * Idempotent: a job that has moved on (admitted already, canceled) is left alone.
     *
     * @return how many were admitted
     */
    public int admitAll(Collection<UUID> ids) {
        return ids.isEmpty() ? 0 : inTransaction(() -> submissions.admitAll(ids));
    }

    public Optional<JobRecord> get(UUID id) {
        return reads.get(id);
    }

    /** A job as its tenant sees it: another tenant's job does not exist. */
    public Optional<JobRecord> find(UUID tenantId, UUID id) {
        return reads.find(tenantId, id);
    }

    /**
     * How many bytes of specs one page of a list carries at most (the first job always): a spec may be nearly a MiB
     * (the request's limit), and a page of 500 such jobs read half a GiB at once, which ran job-service out of memory.
     */
    public static final int PAGE_BYTES = 4 * 1024 * 1024;

    /** A page of jobs, and whether more follow it. */
    public record Page(List<JobRecord> jobs, boolean more) {
    }

    /**
     * A tenant's jobs that match the filter, newest first, after a job id (a page's end) when given: at most
     * {@code limit}, fewer where their specs pass {@link #PAGE_BYTES}.
     */
    public Page list(UUID tenantId, JobFilter filter, UUID after, int limit) {
        return reads.list(tenantId, filter, after, limit);
    }

    /**
     * The changes of the window before now, by bucket and the state they entered: one tenant's jobs, or every
     * tenant's ({@code tenantId} null).
     */
    public Map<Long, Map<JobState, Long>> activity(UUID tenantId, Duration window, int bucketSeconds) {
        return reads.activity(tenantId, clock.instant().minus(window), bucketSeconds);
    }

    public List<HistoryEntry> history(UUID jobId) {
        return reads.history(jobId);
    }

    public List<AttemptRecord> attempts(UUID jobId) {
        return reads.attempts(jobId);
    }

    /** The captured output of an attempt: the last bytes of stdout and stderr, as its agent reported them. */
    public record Logs(String stdout, String stderr) {
    }

    /** The tails of one replica of an attempt (0 for a job of one replica) as its end, or last heartbeat, reported them. */
    public Optional<Logs> logs(UUID jobId, int attempt, int replica) {
        return reads.logs(jobId, attempt, replica);
    }

    /** Jobs left in SUBMITTED since before {@code before}: admission's safety net. */
    public List<JobRecord> stuckSubmitted(Instant before, int limit) {
        return reads.stuckSubmitted(before, limit);
    }

    /**
     * Moves {@code current} along {@code change} if nobody changed it since it was read.
     *
     * @return the job after the change, or empty when another writer changed it first
     * @throws io.fleetjobs.model.IllegalTransitionException when the move is not in the table (a bug)
     */
    public Optional<JobRecord> transition(JobRecord current, Transition change) {
        current.state().checkMoveTo(change.to);
        return inTransaction(() -> single(current, change));
    }

    /**
     * Marks a job on a machine as to be canceled; its state stays until the agent confirms. The
     * mark is a change of its own (version, history row with the same state, event).
     *
     * @return the job after the change, or empty when another writer changed it first
     */
    public Optional<JobRecord> requestCancel(JobRecord current) {
        if (!current.state().isOnMachine()) {
            throw new IllegalStateException("cancel requests are for jobs on machines, not " + current.state());
        }
        return inTransaction(() -> single(current, Transition.cancelRequest(current.state(), current.machineId())));
    }

    private Optional<JobRecord> single(JobRecord current, Transition change) {
        return writes.apply(List.of(JobWrites.Change.of(current, change))).jobs().stream().findFirst();
    }
}
