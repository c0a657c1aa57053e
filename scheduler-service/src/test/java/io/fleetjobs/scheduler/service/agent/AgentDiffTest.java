package io.fleetjobs.scheduler.service.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AgentProtocol.AttemptRef;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.store.AssignedAttempt;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AgentDiffTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final UUID JOB = UUID.fromString("00000000-0000-0000-0000-000000000007");

    @ParameterizedTest(name = "agent: {0} at epoch {1}; database: {2} at epoch {3}, cancel asked {4} -> {5}")
    @CsvSource({
            // agent says (blank: nothing), epoch, database says (blank: not live), epoch, cancel asked, bucket
            "RUNNING,  1, ,          , false, kill: not current: this attempt must not run",
            "RUNNING,  1, RUNNING,   2, false, kill: not current: this attempt must not run",   // leased again since
            "RUNNING,  1, RUNNING,   1, false, nothing",
            "RUNNING,  1, RUNNING,   1, true,  kill: canceled",
            "RUNNING,  1, SCHEDULED, 1, true,  kill: canceled",
            "RUNNING,  1, SCHEDULED, 1, false, settle: RUNNING",    // its start report is late or lost
            "FAILED,   1, SCHEDULED, 1, false, nothing",            // its end is being applied: not leased again
            "FAILED,   1, RUNNING,   1, true,  nothing",
            ",          , SCHEDULED, 1, false, start",
            ",          , SCHEDULED, 1, true,  settle: CANCELED",   // canceled before it started: nothing to kill
            ",          , RUNNING,   1, true,  settle: CANCELED",
            ",          , RUNNING,   1, false, nothing",            // the agent's next report or the reconciler settles it
            ",          , ,          , false, nothing"})
    void oneAttemptLandsInItsBucket(AttemptState reported, Long reportedEpoch, AttemptState recorded, Long recordedEpoch,
            boolean cancelAsked, String bucket) {
        List<AttemptReport> reports = reported == null ? List.of() : List.of(report(JOB, reported, reportedEpoch));
        List<AssignedAttempt> live = recorded == null ? List.of() : List.of(live(JOB, recorded, recordedEpoch, cancelAsked));

        AgentDiff diff = AgentDiff.of(AgentDiff.Reported.of("m1", reports), live, NOW);

        assertThat(describe(diff)).isEqualTo(List.of(bucket));
    }

    @Test
    void aSettledCancelEndsTheLiveEpochOnTheHeartbeatsMachineNow() {
        AgentDiff diff = AgentDiff.of(AgentDiff.Reported.of("m1", List.of()), List.of(live(JOB, AttemptState.SCHEDULED, 4, true)),
                NOW);
        AttemptReport settled = diff.settle().getFirst();
        assertThat(settled.epoch()).isEqualTo(4);
        assertThat(settled.machineId()).isEqualTo("m1");
        assertThat(settled.finishedAt()).isEqualTo(NOW);
    }

    /** Preempted (issue 20): a running attempt is killed "preempted"; one not started yet is settled, never leased. */
    @Test
    void aPreemptedAttemptIsKilledOrSettledAndNeverLeased() {
        AssignedAttempt running = new AssignedAttempt(JOB, 1, 1, AttemptState.RUNNING, false, null, 1000, 64, List.of(), null,
                true);
        AgentDiff kill = AgentDiff.of(AgentDiff.Reported.of("m1", List.of(report(JOB, AttemptState.RUNNING, 1))),
                List.of(running), NOW);
        assertThat(describe(kill)).containsExactly("kill: preempted");

        AssignedAttempt scheduled = new AssignedAttempt(JOB, 1, 1, AttemptState.SCHEDULED, false, Execution.of("echo", "hi"),
                1000, 64, List.of(), 30_000L, true);
        AgentDiff settle = AgentDiff.of(AgentDiff.Reported.of("m1", List.of()), List.of(scheduled), NOW);
        assertThat(settle.start()).isEmpty();
        assertThat(settle.settle()).singleElement().satisfies(r -> {
            assertThat(r.state()).isEqualTo(AttemptState.FAILED);
            assertThat(r.failureReason()).isEqualTo(FailureReason.PREEMPTED);
        });
    }

    /**
     * An attempt to start that its machine's read left for later (past what one read carries) is not leased now, and
     * the answer is not held: the agent comes back at once for it.
     */
    @Test
    void anAttemptLeftForALaterReadIsNotStartedAndTheAnswerIsNotHeld() {
        UUID other = UUID.randomUUID();
        AssignedAttempt carried = live(JOB, AttemptState.SCHEDULED, 1, false);
        AssignedAttempt later = new AssignedAttempt(other, 1, 2, AttemptState.SCHEDULED, false, null);
        AgentDiff diff = AgentDiff.of(AgentDiff.Reported.of("m1", List.of()), List.of(carried, later), NOW);
        assertThat(diff.start()).extracting(AgentProtocol.Lease::jobId).containsExactly(JOB);
        assertThat(diff.startsLater()).isTrue();

        AgentDiff onlyLater = AgentDiff.of(AgentDiff.Reported.of("m1", List.of()), List.of(later), NOW);
        assertThat(onlyLater.start()).isEmpty();
        assertThat(onlyLater.tellsNothing()).as("an answer with starts to come is not held").isFalse();
    }

    /** Gangs (issue 20): a replica is leased with its place in the gang; one whose gang failed is killed or settled. */
    @Test
    void aGangsReplicaIsLeasedWithItsRankAndEndedWhenAnotherReplicaFailed() {
        var gang = new AgentProtocol.Gang(2, 3, List.of("a:29501", "b:29501", "c:29501"));
        AssignedAttempt toStart = new AssignedAttempt(JOB, 1, 1, AttemptState.SCHEDULED, false, Execution.of("echo", "hi"),
                1000, 64, List.of(), 30_000L, false, gang, false);
        AgentDiff start = AgentDiff.of(AgentDiff.Reported.of("m1", List.of()), List.of(toStart), NOW);
        assertThat(start.start()).singleElement().satisfies(l -> assertThat(l.gang()).isEqualTo(gang));

        AssignedAttempt running = new AssignedAttempt(JOB, 1, 1, AttemptState.RUNNING, false, null, 1000, 64, List.of(),
                null, false, gang, true);
        AgentDiff kill = AgentDiff.of(AgentDiff.Reported.of("m1", List.of(report(JOB, AttemptState.RUNNING, 1))),
                List.of(running), NOW);
        assertThat(describe(kill)).containsExactly("kill: gang member failed");

        AssignedAttempt unstarted = new AssignedAttempt(JOB, 1, 1, AttemptState.SCHEDULED, false, Execution.of("echo", "hi"),
                1000, 64, List.of(), 30_000L, false, gang, true);
        AgentDiff settle = AgentDiff.of(AgentDiff.Reported.of("m1", List.of()), List.of(unstarted), NOW);
        assertThat(settle.start()).isEmpty();
        assertThat(settle.settle()).singleElement().satisfies(r -> {
            assertThat(r.state()).isEqualTo(AttemptState.FAILED);
            assertThat(r.failureReason()).isEqualTo(FailureReason.GANG_MEMBER_FAILED);
        });
    }

    @ParameterizedTest(name = "time limit ends {0} s from now -> {1}")
    @CsvSource({
            // seconds from NOW to the end of the running attempt's limit (blank: it has none), bucket
            "  ,  nothing",
            " 60, nothing",
            "  0, nothing",
            " -5, nothing",     // within the slack: its agent kills it at its own deadline
            " -6, kill: timed out"})
    void aRunningAttemptPastItsTimeLimitAndTheSlackIsKilled(Long limitEndsIn, String bucket) {
        AssignedAttempt running = new AssignedAttempt(JOB, 1, 1, AttemptState.RUNNING, false, null, 1000, 512, List.of(), null,
                false, null, false, limitEndsIn == null ? null : NOW.plusSeconds(limitEndsIn));

        AgentDiff diff = AgentDiff.of(AgentDiff.Reported.of("m1", List.of(report(JOB, AttemptState.RUNNING, 1))),
                List.of(running), NOW);

        assertThat(describe(diff)).isEqualTo(List.of(bucket));
        assertThat(AgentDiff.TIME_LIMIT_SLACK).isEqualTo(Duration.ofSeconds(5));
    }

    /** Past its limit and not run by its agent (nor reported ended): nothing to kill, it is ended TIMEOUT. */
    @Test
    void aRunningAttemptPastItsTimeLimitThatItsAgentDoesNotRunIsSettledAsTimedOut() {
        AssignedAttempt running = new AssignedAttempt(JOB, 1, 1, AttemptState.RUNNING, false, null, 1000, 512, List.of(), null,
                false, null, false, NOW.minusSeconds(6));
        AgentDiff diff = AgentDiff.of(AgentDiff.Reported.of("m1", List.of()), List.of(running), NOW);
        assertThat(describe(diff)).isEqualTo(List.of("settle: FAILED"));
        assertThat(diff.settle().getFirst().failureReason()).isEqualTo(FailureReason.TIMEOUT);

        AssignedAttempt withinSlack = new AssignedAttempt(JOB, 1, 1, AttemptState.RUNNING, false, null, 1000, 512, List.of(),
                null, false, null, false, NOW.minusSeconds(5));
        assertThat(describe(AgentDiff.of(AgentDiff.Reported.of("m1", List.of()), List.of(withinSlack), NOW)))
                .isEqualTo(List.of("nothing"));
    }

    @Test
    void reportsAreBoundToTheMachineOfTheCredential() {
        var reported = AgentDiff.Reported.of("m1", List.of(new AttemptReport(JOB, 1, 1, "someone-else", AttemptState.SUCCEEDED,
                0, null, NOW, NOW, "", "")));
        assertThat(reported.ended()).extracting(AttemptReport::machineId).containsExactly("m1");
        assertThat(reported.running()).isEmpty();
    }

    /** Over many random machines: what an answer may say, whatever the agent and the database say. */
    @Test
    void theDiffNeverLeasesWhatTheAgentReportsEndedNorKillsWhatItDoesNotRun() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int round = 0; round < 2_000; round++) {
            List<AttemptReport> reports = new ArrayList<>();
            List<AssignedAttempt> live = new ArrayList<>();
            for (int n = random.nextInt(6); n > 0; n--) {
                UUID job = new UUID(seed, random.nextInt(4)); // a few ids, so that reports and rows meet
                if (random.nextBoolean() && live.stream().noneMatch(a -> a.jobId().equals(job))) {
                    live.add(live(job, random.nextBoolean() ? AttemptState.SCHEDULED : AttemptState.RUNNING,
                            1 + random.nextInt(2), random.nextInt(4) == 0));
                }
                if (random.nextBoolean() && reports.stream().noneMatch(r -> r.jobId().equals(job))) {
                    reports.add(report(job, random.nextBoolean() ? AttemptState.RUNNING : AttemptState.FAILED,
                            1 + random.nextInt(2)));
                }
            }
            var reported = AgentDiff.Reported.of("m1", reports);
            AgentDiff diff = AgentDiff.of(reported, live, NOW);
            Set<AttemptRef> ended = reported.endedRefs();
            String why = "seed " + seed + ", round " + round + ": " + reports + " against " + live;

            assertThat(diff.start()).as(why).allSatisfy(lease -> {
                assertThat(ended).doesNotContain(new AttemptRef(lease.jobId(), lease.attempt()));
                assertThat(live).anySatisfy(a -> {
                    assertThat(a.jobId()).isEqualTo(lease.jobId());
                    assertThat(a.epoch()).isEqualTo(lease.epoch());
                    assertThat(a.state()).isEqualTo(AttemptState.SCHEDULED);
                    assertThat(a.cancelRequested()).isFalse();
                });
            });
            assertThat(diff.kill()).as(why).allSatisfy(kill ->
                    assertThat(reported.running()).containsKey(new AttemptRef(kill.jobId(), kill.attempt())));
            assertThat(diff.settle()).as(why).allSatisfy(r -> {
                assertThat(r.machineId()).isEqualTo("m1");
                assertThat(live).anySatisfy(a -> {
                    assertThat(a.jobId()).isEqualTo(r.jobId());
                    assertThat(a.epoch()).isEqualTo(r.epoch());
                });
            });
            assertThat(AgentDiff.of(reported, live, NOW)).as(why + ": the same inputs, the same diff").isEqualTo(diff);
        }
    }

    private static List<String> describe(AgentDiff diff) {
        List<String> buckets = new ArrayList<>();
        diff.start().forEach(l -> buckets.add("start"));
        diff.kill().forEach(k -> buckets.add("kill: " + k.reason()));
        diff.settle().forEach(r -> buckets.add("settle: " + r.state()));
        return buckets.isEmpty() ? List.of("nothing") : buckets;
    }

    @Test
    void aReportGivenAgainCountsOnceAndOneJobIsHeardOnAFewReportsAtMost() {
        List<AttemptReport> copies = Collections.nCopies(10_000, report(JOB, AttemptState.FAILED, 4));
        assertThat(AgentDiff.Reported.of("m1", copies).ended()).hasSize(1);

        List<AttemptReport> manyAttempts = new ArrayList<>();
        for (int n = 1; n <= 1_000; n++) {
            manyAttempts.add(new AttemptReport(JOB, n, 4 + n, "m1", AttemptState.FAILED, 1, null, NOW, NOW, null, null));
        }
        UUID other = UUID.randomUUID();
        manyAttempts.add(report(other, AttemptState.RUNNING, 9));
        var heard = AgentDiff.Reported.of("m1", manyAttempts);
        assertThat(heard.ended()).hasSize(AgentDiff.MAX_REPORTS_PER_JOB);
        assertThat(heard.running()).as("another job's report is heard all the same").hasSize(1);
    }

    private static AttemptReport report(UUID job, AttemptState state, long epoch) {
        return new AttemptReport(job, 1, epoch, "m1", state, state.isLive() ? null : 1, null, NOW, state.isLive() ? null : NOW,
                null, null);
    }

    private static AssignedAttempt live(UUID job, AttemptState state, long epoch, boolean cancelAsked) {
        return new AssignedAttempt(job, 1, epoch, state, cancelAsked,
                state == AttemptState.SCHEDULED ? Execution.of("echo", "hi") : null);
    }
}
