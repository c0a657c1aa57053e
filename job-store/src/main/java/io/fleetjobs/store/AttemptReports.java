package io.fleetjobs.store;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.CurrentJob;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobOutcome;
import io.fleetjobs.model.JobStartRule;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.ReportFence;
import io.fleetjobs.model.RetryPolicy;
import io.fleetjobs.model.agent.AttemptReport;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.random.RandomGenerator;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Applies what agents report of attempts, from heartbeats and from Kafka alike: it reads the rows, asks the
 * rules, and writes what they decided.
 * <ul>
 *   <li>{@link ReportFence}: a report of an attempt that does not exist, of another lease epoch or another
 *       machine is {@link Outcome#STALE}; one the attempt cannot move to (a duplicate, a RUNNING report after
 *       the end) is {@link Outcome#DUPLICATE}; neither changes anything, so a late report never moves a job back;</li>
 *   <li>otherwise the attempt moves, its allocation is released when it ends, and the job follows when the
 *       attempt is still its current one: to RUNNING by {@link JobStartRule} (an end that carries a start never
 *       recorded moves it to RUNNING first), then by {@link JobOutcome} after an end.</li>
 * </ul>
 * The attempt row is locked first, then the job row (guarded update), then the machine row: the
 * same order for every report, and the scheduler never waits on a job a report holds.
 */
public final class AttemptReports {
    private final JdbcClient jdbc;
    private final GpuHolds gpus;
    private final JobStore jobs;
    private final RandomGenerator random;
    private final AttemptMetrics metrics;

    public AttemptReports(JdbcClient jdbc, JobStore jobs, RandomGenerator random) {
        this(jdbc, jobs, random, null);
    }

    /** {@code meters}: where attempt endings and retries are counted ({@link AttemptMetrics}); null counts nothing. */
    public AttemptReports(JdbcClient jdbc, JobStore jobs, RandomGenerator random, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.gpus = new GpuHolds(jdbc);
        this.jobs = jobs;
        this.random = random;
        this.metrics = new AttemptMetrics(meters);
    }

    /**
     * {@code BUSY}: only from {@link #applyAvailable}, the attempt was being changed by another
     * transaction (the same report on its other path, most likely); nothing changed, send it again later.
     */
    public enum Outcome { APPLIED, DUPLICATE, STALE, BUSY }

    /** An attempt as locked: what the fence checks, and what it holds on its machine. */
    private record Current(ReportFence.RecordedAttempt recorded, Amounts held) {
        AttemptState state() {
            return recorded.state();
        }

        String machineId() {
            return recorded.machineId();
        }
    }

    public Outcome apply(AttemptReport report) {
        try (var ignored = JobLogContext.of(report.jobId(), report.attempt(), report.machineId())) {
            return applyAll(List.of(report)).get(0);
        }
    }

    /**
     * Applies many reports in one transaction, a few statements for all of them, with the same
     * outcome as applying them one by one in the order given: reports of one job are applied in
     * rounds (its first report in the first round, and so on), so a RUNNING report followed by the
     * end of the attempt leaves both changes in the job's history.
     *
     * <p>Rows are locked attempts first, then jobs, then machines, each kind in key order, as every
     * other writer of them does: no deadlock with another batch, a single report or the scheduler.
     *
     * @return the outcome of each report, in the order given
     */
    public List<Outcome> applyAll(List<AttemptReport> reports) {
        return applyAll(reports, false);
    }

    /**
     * Like {@link #applyAll}, but a report whose attempt another transaction holds is not waited for:
     * it is {@link Outcome#BUSY} and changes nothing. For reports that come again until acknowledged
     * (heartbeats), so that the two paths of one report do not queue behind each other's locks.
     */
    public List<Outcome> applyAvailable(List<AttemptReport> reports) {
        return applyAll(reports, true);
    }

    private List<Outcome> applyAll(List<AttemptReport> reports, boolean skipLocked) {
        if (reports.isEmpty()) {
            return List.of();
        }
        return jobs.inTransaction(() -> {
            Outcome[] outcomes = new Outcome[reports.size()];
            Map<UUID, Integer> perJob = new HashMap<>();
            List<List<Integer>> rounds = new ArrayList<>();
            for (int i = 0; i < reports.size(); i++) {
                int round = perJob.merge(reports.get(i).jobId(), 1, Integer::sum) - 1;
                if (round == rounds.size()) {
                    rounds.add(new ArrayList<>());
                }
                rounds.get(round).add(i);
            }
            Map<String, Amounts> release = new TreeMap<>();
            for (List<Integer> round : rounds) {
                applyRound(reports, round, outcomes, skipLocked, release);
            }
            release(release);
            return Arrays.asList(outcomes);
        });
    }

    private record Key(UUID jobId, int attempt) {
    }

    /** Reports of distinct jobs. */
    private void applyRound(List<AttemptReport> reports, List<Integer> round, Outcome[] outcomes, boolean skipLocked,
            Map<String, Amounts> release) {
        List<AttemptReport> asked = round.stream().map(reports::get).toList();
        Map<Key, Current> current = lockAttempts(asked, skipLocked);
        Set<Key> busy = skipLocked ? held(asked, current) : Set.of();
        List<AttemptReport> started = new ArrayList<>();
        List<AttemptReport> ended = new ArrayList<>();
        for (int i : round) {
            AttemptReport r = reports.get(i);
            Key key = new Key(r.jobId(), r.attempt());
            if (busy.contains(key)) {
                outcomes[i] = Outcome.BUSY;
                continue;
            }
            Current c = current.get(key);
            ReportFence.Verdict verdict = ReportFence.classify(r, c == null ? null : c.recorded());
            outcomes[i] = verdict.isStale() ? Outcome.STALE : verdict == ReportFence.Verdict.DUPLICATE
                    ? Outcome.DUPLICATE : Outcome.APPLIED;
            if (verdict == ReportFence.Verdict.APPLY) {
                (r.state() == AttemptState.RUNNING ? started : ended).add(r);
            }
        }
        if (started.isEmpty() && ended.isEmpty()) {
            return;
        }
        Map<UUID, Locked> jobRows = lockJobs(java.util.stream.Stream.concat(started.stream(), ended.stream())
                .map(AttemptReport::jobId).toList());
        Instant now = jobs.clock().instant();
        markRunning(started, now);
        end(ended, current, now, release);

        List<JobStore.Change> changes = new ArrayList<>();
        for (AttemptReport r : started) {
            JobRecord job = Locked.job(jobRows.get(r.jobId()));
            if (JobStartRule.startsJob(r, rulesView(job))) {
                String machine = current.get(new Key(r.jobId(), r.attempt())).machineId();
                changes.add(new JobStore.Change(job, Transition.to(JobState.RUNNING, "running on " + machine)));
            }
        }
        boolean startsWithEnds = false;
        for (AttemptReport r : ended) {
            Current c = current.get(new Key(r.jobId(), r.attempt()));
            JobRecord job = Locked.job(jobRows.get(r.jobId()));
            Optional<Instant> startedAt = JobStartRule.startBeforeEnd(r, c.state(), rulesView(job), now);
            if (startedAt.isPresent()) {
                changes.add(new JobStore.Change(job, Transition.to(JobState.RUNNING, "running on " + c.machineId())
                        .at(startedAt.get())));
                startsWithEnds = true;
            }
        }
        // a job moves once per statement: those starts first, then the ends from the rows they left
        Map<UUID, JobRecord> running = new HashMap<>();
        if (startsWithEnds) {
            jobs.transitionLocked(changes).forEach(job -> running.put(job.id(), job));
            changes = new ArrayList<>();
        }
        for (AttemptReport r : ended) {
            metrics.attemptEnded(r.state(), r.failureReason());
            Locked locked = jobRows.get(r.jobId());
            JobRecord job = running.getOrDefault(r.jobId(), Locked.job(locked)); // a round's jobs are distinct
            Optional<JobOutcome> outcome = JobOutcome.ofEnd(r, rulesView(job), locked == null ? null : locked::retry, now,
                    random);
            if (outcome.isPresent()) {
                changes.add(new JobStore.Change(job, transition(outcome.get())));
                if (outcome.get() instanceof JobOutcome.Retried retried) {
                    metrics.retried(retried.failure());
                }
            }
        }
        jobs.transitionLocked(changes);
    }

    /** The job as its rules see it; null for none. */
    private static CurrentJob rulesView(JobRecord job) {
        return job == null ? null : new CurrentJob(job.state(), job.attempt(), job.cancelRequested(), job.userFailures(),
                job.infraFailures(), job.updatedAt());
    }

    private static Transition transition(JobOutcome outcome) {
        Transition move = Transition.to(outcome.target(), outcome.reason());
        return switch (outcome) {
            case JobOutcome.Succeeded s -> move.outcome(s.exitCode(), null);
            case JobOutcome.Canceled c -> move.outcome(c.exitCode(), null);
            case JobOutcome.Retried r -> move.outcome(r.exitCode(), r.failure()).offMachine()
                    .notBefore(r.retry().notBefore()).spend(r.retry().spendUser(), r.retry().spendInfra());
            case JobOutcome.Failed f -> move.outcome(f.exitCode(), f.failure());
        };
    }

    /** The reported attempts as they are, locked, in (job, attempt) order. */
    private Map<Key, Current> lockAttempts(List<AttemptReport> reports, boolean skipLocked) {
        String[] ids = reports.stream().map(r -> r.jobId().toString()).toArray(String[]::new);
        Integer[] attempts = reports.stream().map(AttemptReport::attempt).toArray(Integer[]::new);
        Map<Key, Current> found = new HashMap<>();
        jdbc.sql("""
                        select a.job_id, a.attempt, a.state, a.lease_epoch, a.machine_id, a.cpu_millis, a.memory_mb, a.gpu_count
                        from attempts a join unnest(cast(:ids as uuid[]), cast(:n as int[])) as d(id, n)
                             on a.job_id = d.id and a.attempt = d.n
                        order by a.job_id, a.attempt for update of a""" + (skipLocked ? " skip locked" : ""))
                .param("ids", ids).param("n", attempts)
                .query(rs -> {
                    found.put(new Key(rs.getObject(1, UUID.class), rs.getInt(2)), new Current(new ReportFence.RecordedAttempt(
                            AttemptState.valueOf(rs.getString(3)), rs.getLong(4), rs.getString(5)),
                            new Amounts(rs.getLong(6), rs.getLong(7), rs.getInt(8))));
                });
        return found;
    }

    /** Those of the asked attempts that exist but were not locked: another transaction holds them. */
    private Set<Key> held(List<AttemptReport> asked, Map<Key, Current> locked) {
        List<AttemptReport> missing = asked.stream().filter(r -> !locked.containsKey(new Key(r.jobId(), r.attempt()))).toList();
        if (missing.isEmpty()) {
            return Set.of();
        }
        Set<Key> exist = new java.util.HashSet<>();
        jdbc.sql("""
                        select a.job_id, a.attempt from attempts a
                        join unnest(cast(:ids as uuid[]), cast(:n as int[])) as d(id, n) on a.job_id = d.id and a.attempt = d.n""")
                .param("ids", missing.stream().map(r -> r.jobId().toString()).toArray(String[]::new))
                .param("n", missing.stream().map(AttemptReport::attempt).toArray(Integer[]::new))
                .query(rs -> {
                    exist.add(new Key(rs.getObject(1, UUID.class), rs.getInt(2)));
                });
        return exist;
    }

    /**
     * A job locked to apply a report: its row without the spec ({@link JobRecord#spec()} is null), which
     * applying a report does not need but for the retry policy, read alone as JSON and parsed only for
     * an attempt that failed: parsing the spec of every job whose attempt reports in costs much CPU.
     */
    private record Locked(JobRecord job, String retryJson) {
        static JobRecord job(Locked locked) {
            return locked == null ? null : locked.job;
        }

        RetryPolicy retry() {
            return retryJson == null ? RetryPolicy.DEFAULT : Json.read(retryJson, RetryPolicy.class);
        }
    }

    /** The jobs of the applied reports, locked in id order. */
    private Map<UUID, Locked> lockJobs(List<UUID> jobIds) {
        Map<UUID, Locked> rows = new HashMap<>();
        jdbc.sql("select " + JobStore.COLUMNS_BUT_SPEC + ", spec->'retry' as retry from jobs"
                        + " where id = any(cast(:ids as uuid[])) order by id for update")
                .param("ids", jobIds.stream().map(UUID::toString).toArray(String[]::new))
                .query((rs, n) -> new Locked(JobStore.job(rs, null), rs.getString("retry"))).list()
                .forEach(l -> rows.put(l.job().id(), l));
        return rows;
    }

    private void markRunning(List<AttemptReport> started, Instant now) {
        if (started.isEmpty()) {
            return;
        }
        jdbc.sql("""
                        update attempts a set state = 'RUNNING', started_at = d.at
                        from unnest(cast(:ids as uuid[]), cast(:n as int[]), cast(cast(:at as text[]) as timestamptz[]))
                             as d(id, n, at)
                        where a.job_id = d.id and a.attempt = d.n""")
                .param("ids", started.stream().map(r -> r.jobId().toString()).toArray(String[]::new))
                .param("n", started.stream().map(AttemptReport::attempt).toArray(Integer[]::new))
                .param("at", started.stream().map(r -> (r.startedAt() == null ? now : r.startedAt()).toString())
                        .toArray(String[]::new))
                .update();
    }

    /** Ends the attempts and adds what they held to {@code release}, per machine. */
    private void end(List<AttemptReport> ended, Map<Key, Current> current, Instant now, Map<String, Amounts> release) {
        if (ended.isEmpty()) {
            return;
        }
        int n = ended.size();
        String[] ids = new String[n];
        Integer[] attempts = new Integer[n];
        String[] states = new String[n];
        String[] finished = new String[n];
        Integer[] exits = new Integer[n];
        String[] reasons = new String[n];
        String[] startedAt = new String[n];
        String[] stdout = new String[n];
        String[] stderr = new String[n];
        for (int i = 0; i < n; i++) {
            AttemptReport r = ended.get(i);
            ids[i] = r.jobId().toString();
            attempts[i] = r.attempt();
            states[i] = r.state().name();
            finished[i] = (r.finishedAt() == null ? now : r.finishedAt()).toString();
            exits[i] = r.exitCode();
            reasons[i] = r.failureReason() == null ? null : r.failureReason().name();
            startedAt[i] = r.startedAt() == null ? null : r.startedAt().toString();
            stdout[i] = r.stdoutTail();
            stderr[i] = r.stderrTail();
            Current c = current.get(new Key(r.jobId(), r.attempt()));
            release.merge(c.machineId(), c.held(), Amounts::plus);
        }
        jdbc.sql("""
                        update attempts a set state = d.state, finished_at = d.finished, exit_code = d.exit,
                            failure_reason = d.reason, started_at = coalesce(a.started_at, d.started),
                            log_tail_stdout = d.out, log_tail_stderr = d.err, released_at = :now, lease_expires_at = null
                        from unnest(cast(:ids as uuid[]), cast(:n as int[]), cast(:states as text[]),
                                    cast(cast(:finished as text[]) as timestamptz[]), cast(:exits as int[]),
                                    cast(:reasons as text[]), cast(cast(:started as text[]) as timestamptz[]),
                                    cast(:out as text[]), cast(:err as text[]))
                             as d(id, n, state, finished, exit, reason, started, out, err)
                        where a.job_id = d.id and a.attempt = d.n""")
                .param("ids", ids).param("n", attempts).param("states", states).param("finished", finished)
                .param("exits", exits).param("reasons", reasons).param("started", startedAt)
                .param("out", stdout).param("err", stderr).param("now", JobStore.ts(now))
                .update();
        if (ended.stream().anyMatch(r -> current.get(new Key(r.jobId(), r.attempt())).held().gpus() > 0)) {
            gpus.release(ids, attempts);
        }
    }

    /**
     * Gives the machines back what the ended attempts held: the last statements of the transaction, so that
     * the machine rows, which every placement locks too, are held only until the commit (rows locked in id
     * order, as every other writer of them does).
     */
    private void release(Map<String, Amounts> release) {
        if (release.isEmpty()) {
            return;
        }
        String[] machines = release.keySet().toArray(String[]::new);
        jdbc.sql("select id from machines where id = any(:ids) order by id for no key update")
                .param("ids", machines).query(String.class).list();
        jdbc.sql("""
                        update machines m set alloc_cpu_millis = m.alloc_cpu_millis - d.c, alloc_memory_mb = m.alloc_memory_mb - d.r,
                            alloc_gpu_count = m.alloc_gpu_count - d.g, capacity_version = m.capacity_version + 1
                        from unnest(cast(:m as text[]), cast(:c as bigint[]), cast(:r as bigint[]), cast(:g as int[])) as d(m, c, r, g)
                        where m.id = d.m""")
                .param("m", machines)
                .param("c", release.values().stream().map(Amounts::cpuMillis).toArray(Long[]::new))
                .param("r", release.values().stream().map(Amounts::memoryMb).toArray(Long[]::new))
                .param("g", release.values().stream().map(Amounts::gpus).toArray(Integer[]::new))
                .update();
    }

    /**
     * Ends every live attempt on a machine as {@code reason} (its agent restarted, or the machine was
     * lost): each through the same fenced path as an agent's report.
     */
    public int endLiveAttempts(String machineId, FailureReason reason) {
        List<AttemptReport> live = jdbc.sql("""
                        select job_id, attempt, lease_epoch from attempts
                        where machine_id = :m and released_at is null and state in ('SCHEDULED', 'RUNNING')""")
                .param("m", machineId)
                .query((rs, n) -> new AttemptReport(rs.getObject(1, UUID.class), rs.getInt(2), rs.getLong(3), machineId,
                        AttemptState.FAILED, null, reason, null, null, null, null))
                .list();
        return (int) applyAll(live).stream().filter(o -> o == Outcome.APPLIED).count();
    }
}
