package io.fleetjobs.store;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.CurrentJob;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.GangRule;
import io.fleetjobs.model.JobOutcome;
import io.fleetjobs.model.JobStartRule;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.ReportFence;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.store.Attempts.Current;
import io.fleetjobs.store.Attempts.Key;
import io.fleetjobs.store.JobReads.LockedJob;
import io.fleetjobs.store.JobWrites.Change;
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
import java.util.stream.Stream;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Applies what agents report of attempts in their heartbeats (the one channel bound to a machine's credential),
 * and the reconciler's repairs: it reads the rows, asks the rules, and writes what they decided.
 * <ul>
 *   <li>{@link ReportFence}: a report of an attempt that does not exist, of another lease epoch or another
 *       machine is {@link Outcome#STALE}; one the attempt cannot move to (a duplicate, a RUNNING report after
 *       the end) is {@link Outcome#DUPLICATE}; neither changes anything, so a late report never moves a job back;</li>
 *   <li>otherwise the attempt moves, its allocation is released when it ends, and the job follows when the
 *       attempt is still its current one: to RUNNING by {@link JobStartRule} (an end that carries a start never
 *       recorded moves it to RUNNING first, in the same update of its row), then by {@link JobOutcome} after an
 *       end.</li>
 * </ul>
 * The attempt row is locked first, then the job row (guarded update), then the machine row: the
 * same order for every report, and the scheduler never waits on a job a report holds.
 */
public final class AttemptReports {
    private final JobStore jobs;
    private final JobWrites writes;
    private final Attempts attempts;
    private final GpuHolds gpus;
    private final MachineAllocations machines;
    private final RandomGenerator random;
    private final AttemptMetrics metrics;

    public AttemptReports(JdbcClient jdbc, JobStore jobs, RandomGenerator random) {
        this(jdbc, jobs, random, null);
    }

    /** {@code meters}: where attempt endings and retries are counted ({@link AttemptMetrics}); null counts nothing. */
    public AttemptReports(JdbcClient jdbc, JobStore jobs, RandomGenerator random, MeterRegistry meters) {
        this.jobs = jobs;
        this.writes = jobs.writes();
        this.attempts = new Attempts(jdbc);
        this.gpus = new GpuHolds(jdbc);
        this.machines = new MachineAllocations(jdbc);
        this.random = random;
        this.metrics = new AttemptMetrics(meters);
    }

    /**
     * {@code BUSY}: only from {@link #applyAvailable}, the attempt's row was locked by another transaction (such as
     * a reconciler's sweep or an earlier heartbeat of the same machine); nothing changed, send it again later.
     */
    public enum Outcome { APPLIED, DUPLICATE, STALE, BUSY }

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
     * (heartbeats), so that a heartbeat does not queue behind the locks of a reconciler's sweep or of an
     * earlier heartbeat of its machine: the report is simply applied by a later heartbeat.
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
            Map<String, MachineAllocations.Released> release = new TreeMap<>();
            for (List<Integer> round : rounds) {
                applyRound(reports, round, outcomes, skipLocked, release);
            }
            machines.release(release);
            return Arrays.asList(outcomes);
        });
    }

    /** Reports of distinct jobs. */
    private void applyRound(List<AttemptReport> reports, List<Integer> round, Outcome[] outcomes, boolean skipLocked,
            Map<String, MachineAllocations.Released> release) {
        List<AttemptReport> asked = round.stream().map(reports::get).toList();
        Map<Key, Current> current = attempts.lock(asked, skipLocked);
        Set<Key> busy = skipLocked ? held(asked, current) : Set.of();
        List<AttemptReport> started = new ArrayList<>();
        List<AttemptReport> ended = new ArrayList<>();
        for (int i : round) {
            AttemptReport r = reports.get(i);
            Key key = Key.of(r);
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
        Map<UUID, LockedJob> jobRows = jobs.reads().lockForReports(Stream.concat(started.stream(), ended.stream())
                .map(AttemptReport::jobId).toList());
        Instant now = jobs.clock().instant();
        attempts.markRunning(started, now);
        attempts.end(ended, now);
        gpus.release(ended.stream().filter(r -> current.get(Key.of(r)).held().gpus() > 0).toList());
        ended.forEach(r -> release.compute(current.get(Key.of(r)).machineId(),
                (machine, sum) -> (sum == null ? MachineAllocations.Released.NONE : sum).plus(current.get(Key.of(r)).held())));

        List<Change> changes = new ArrayList<>();
        for (AttemptReport r : started) {
            JobRecord job = LockedJob.job(jobRows.get(r.jobId()));
            if (JobStartRule.startsJob(r, rulesView(job))) {
                String machine = current.get(Key.of(r)).machineId();
                changes.add(Change.of(job, Transition.to(JobState.RUNNING, "running on " + machine)));
            }
        }
        // a start the agent reported only with the end is written with the end's move, in one update of the row
        // (a history row and an event each); alone where the end moves the job no further (a gang's replica)
        Map<UUID, Transition> startsWithEnds = new HashMap<>();
        for (AttemptReport r : ended) {
            Current c = current.get(Key.of(r));
            JobRecord job = LockedJob.job(jobRows.get(r.jobId()));
            JobStartRule.startBeforeEnd(r, c.state(), rulesView(job), now).ifPresent(at -> startsWithEnds.put(r.jobId(),
                    Transition.to(JobState.RUNNING, "running on " + c.machineId()).at(at)));
        }
        Map<AttemptReport, AttemptReport> asTheGang = gangEnds(ended, current);
        for (AttemptReport r : ended) {
            metrics.attemptEnded(r.state(), r.failureReason());
            LockedJob locked = jobRows.get(r.jobId());
            JobRecord job = LockedJob.job(locked);
            Transition start = startsWithEnds.get(r.jobId()); // a round's jobs are distinct
            AttemptReport end = asTheGang.getOrDefault(r, r);
            Optional<JobOutcome> outcome = end == WAIT ? Optional.empty() : JobOutcome.ofEnd(end,
                    start == null ? rulesView(job) : runningView(job, now), locked == null ? null : locked::retry, now,
                    random);
            if (outcome.isEmpty()) {
                if (start != null) {
                    changes.add(Change.of(job, start));
                }
                continue;
            }
            Transition move = transition(outcome.get(), preemptor(end, current.get(Key.of(r))));
            changes.add(Change.of(job, start == null ? move : move.after(start)));
            if (outcome.get() instanceof JobOutcome.Retried retried) {
                metrics.retried(retried.failure());
            }
        }
        writes.applyLocked(changes);
    }

    /** Stands for "the job waits for its gang's other replicas" in {@link #gangEnds}. */
    private static final AttemptReport WAIT = new AttemptReport(new UUID(0, 0), 0, 0, null, null, null, null, null,
            null, null, null);

    /**
     * What the ends of gangs' replicas (just written) mean for their jobs, by {@link GangRule}: {@link #WAIT} while
     * other replicas live (those are told to end when this one did not succeed), else the end that stands for the
     * whole gang. The jobs' rows are locked, so replicas ending in other transactions are seen once committed.
     */
    private Map<AttemptReport, AttemptReport> gangEnds(List<AttemptReport> ended, Map<Key, Current> current) {
        List<AttemptReport> ofGangs = ended.stream().filter(r -> current.get(Key.of(r)).worldSize() > 1).toList();
        if (ofGangs.isEmpty()) {
            return Map.of();
        }
        Map<UUID, List<GangRule.Replica>> replicas = attempts.replicas(ofGangs);
        Map<AttemptReport, AttemptReport> ends = new HashMap<>();
        List<AttemptReport> endOthers = new ArrayList<>();
        for (AttemptReport r : ofGangs) {
            switch (GangRule.afterEnd(r, replicas.getOrDefault(r.jobId(), List.of()))) {
                case GangRule.Decision.Wait wait -> {
                    ends.put(r, WAIT);
                    if (wait.endOthers()) {
                        endOthers.add(r);
                    }
                }
                case GangRule.Decision.Conclude conclude -> ends.put(r, conclude.end());
            }
        }
        attempts.endGangs(endOthers);
        return ends;
    }

    /** Those of the asked attempts that exist but were not locked: another transaction holds them. */
    private Set<Key> held(List<AttemptReport> asked, Map<Key, Current> locked) {
        List<AttemptReport> missing = asked.stream().filter(r -> !locked.containsKey(Key.of(r))).toList();
        return missing.isEmpty() ? Set.of() : attempts.existing(missing);
    }

    /** The job as its rules see it; null for none. */
    private static CurrentJob rulesView(JobRecord job) {
        return job == null ? null : new CurrentJob(job.state(), job.attempt(), job.cancelRequested(), job.userFailures(),
                job.infraFailures(), job.updatedAt());
    }

    /** The job as its rules see it once RUNNING since {@code now}: what a start written with its end leaves. */
    private static CurrentJob runningView(JobRecord job, Instant now) {
        return new CurrentJob(JobState.RUNNING, job.attempt(), job.cancelRequested(), job.userFailures(),
                job.infraFailures(), now);
    }

    /** The job an attempt that ended PREEMPTED was ended for; null for every other end. */
    private static UUID preemptor(AttemptReport end, Current attempt) {
        return end.failureReason() == FailureReason.PREEMPTED && attempt != null ? attempt.preemptedBy() : null;
    }

    /** @param preemptor named in the reason: whom a preempted job made room for */
    private static Transition transition(JobOutcome outcome, UUID preemptor) {
        Transition move = Transition.to(outcome.target(), outcome.reason()
                + (preemptor == null ? "" : "; preempted by job " + preemptor));
        return switch (outcome) {
            case JobOutcome.Succeeded s -> move.outcome(s.exitCode(), null);
            case JobOutcome.Canceled c -> move.outcome(c.exitCode(), null);
            case JobOutcome.Retried r -> move.outcome(r.exitCode(), r.failure()).offMachine()
                    .notBefore(r.retry().notBefore()).spend(r.retry().spendUser(), r.retry().spendInfra())
                    .ahead(r.retry().ahead());
            case JobOutcome.Failed f -> move.outcome(f.exitCode(), f.failure());
        };
    }

    /**
     * Ends every live attempt on a machine as {@code reason} (its agent restarted, or the machine was
     * lost): each through the same fenced path as an agent's report.
     */
    public int endLiveAttempts(String machineId, FailureReason reason) {
        return (int) applyAll(attempts.liveAsFailed(machineId, reason)).stream().filter(o -> o == Outcome.APPLIED).count();
    }
}
