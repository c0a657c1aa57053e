package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.agent.AgentProtocol.LogFollow;
import io.fleetjobs.model.logs.LogLimits;
import io.fleetjobs.store.LogStreams.PushOutcome;
import io.fleetjobs.testsupport.SettableClock;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Live logs in the database: follows, fenced pushes, bounded chunks, cleanup. */
class LogStreamsTest {
    private static final SettableClock clock = new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private static StoreFixture f;
    private static PlacementStore placement;
    private static LogStreams logs;

    @BeforeAll
    static void start() {
        f = new StoreFixture(4, clock);
        placement = new PlacementStore(f.jdbc, f.jobs);
        logs = new LogStreams(f.jdbc, clock);
        MachineStore machines = new MachineStore(f.jdbc, clock);
        machines.register("m", "eu", Map.of(), null, 64_000, 65_536, 0);
        machines.register("other", "eu", Map.of(), null, 64_000, 65_536, 0);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static JobRecord placed() {
        JobRecord job = ((Submission.Accepted) f.jobs.submit(f.tenant, StoreFixture.aJob("logs"), null)).job();
        JobRecord queued = f.jobs.transition(job, Transition.admit()).orElseThrow();
        f.jobs.inTransaction(() -> {
            ClaimedJob claimed = placement.reclaim(List.of(queued.id())).getFirst();
            return placement.commit(List.of(new PlacementStore.NewAttempt(claimed, "m", 1000, 256, 0)), List.of(),
                    Duration.ofSeconds(30));
        });
        return f.jobs.get(job.id()).orElseThrow();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void eachReplicaOfAGangHasStreamsOfItsOwn() {
        JobSpec spec = new JobSpec("gang-logs", null, null, Resources.of(1, 256), null,
                Execution.of("true"), null, null, null, 2);
        JobRecord job = f.jobs.transition(((Submission.Accepted) f.jobs.submit(f.tenant, spec, null)).job(),
                Transition.admit()).orElseThrow();
        f.jobs.inTransaction(() -> {
            ClaimedJob claimed = placement.reclaim(List.of(job.id())).getFirst();
            return placement.commit(List.of(new PlacementStore.NewAttempt(claimed, "m", new Amounts(1000, 256, 0), 0),
                    new PlacementStore.NewAttempt(claimed, "other", new Amounts(1000, 256, 0), 1)),
                    List.of(), Duration.ofSeconds(30));
        });
        long epochOnM = f.jdbc.sql("select lease_epoch from attempts where job_id = :j and replica = 0")
                .param("j", job.id()).query(Long.class).single();
        long epochOnOther = f.jdbc.sql("select lease_epoch from attempts where job_id = :j and replica = 1")
                .param("j", job.id()).query(Long.class).single();
        assertThat(logs.attempt(job.id(), 1, 1)).hasValueSatisfying(a -> assertThat(a.machineId()).isEqualTo("other"));
        LogStreams.Stream ofRank1 = new LogStreams.Stream(job.id(), 1, 1, "stdout");
        logs.follow(UUID.randomUUID(), ofRank1, "other", 0);

        // both replicas print from offset 0: each push is stored under the replica of the machine that sent it
        assertThat(logs.push("other", 0, job.id(), 1, epochOnOther, "stdout", 0, bytes("rank 1\n"), false))
                .isEqualTo(PushOutcome.FOLLOWED);
        assertThat(logs.push("m", 0, job.id(), 1, epochOnM, "stdout", 0, bytes("rank 0\n"), false))
                .as("no one follows replica 0").isEqualTo(PushOutcome.NOT_FOLLOWED);
        assertThat(logs.chunksAfter(ofRank1, 0, 10)).singleElement()
                .satisfies(c -> assertThat(new String(c.data(), StandardCharsets.UTF_8)).isEqualTo("rank 1\n"));
        assertThat(logs.chunksAfter(new LogStreams.Stream(job.id(), 1, 0, "stdout"), 0, 10)).singleElement()
                .satisfies(c -> assertThat(new String(c.data(), StandardCharsets.UTF_8)).isEqualTo("rank 0\n"));
        assertThat(logs.followsOn("other")).extracting(LogFollow::jobId).containsExactly(job.id());
        assertThat(logs.followsOn("m")).extracting(LogFollow::jobId).doesNotContain(job.id());
    }

    @Test
    void aPushWithAnOldEpochOrFromAnotherMachineStoresNothing() {
        JobRecord job = placed();
        long epoch = f.epoch(job);
        logs.follow(UUID.randomUUID(), new LogStreams.Stream(job.id(), 1, 0, "stdout"), "m", 0);

        assertThat(logs.push("m", 0, job.id(), 1, epoch - 1, "stdout", 0, bytes("stale\n"), false)).isEqualTo(PushOutcome.FENCED);
        assertThat(logs.push("other", 0, job.id(), 1, epoch, "stdout", 0, bytes("theirs\n"), false))
                .isEqualTo(PushOutcome.FENCED);
        assertThat(logs.chunksAfter(new LogStreams.Stream(job.id(), 1, 0, "stdout"), 0, 10)).isEmpty();

        assertThat(logs.push("m", 0, job.id(), 1, epoch, "stdout", 0, bytes("mine\n"), false)).isEqualTo(PushOutcome.FOLLOWED);
        assertThat(logs.chunksAfter(new LogStreams.Stream(job.id(), 1, 0, "stdout"), 0, 10)).singleElement()
                .satisfies(c -> assertThat(new String(c.data(), StandardCharsets.UTF_8)).isEqualTo("mine\n"));
    }

    @Test
    void aPushSentTwiceIsStoredOnceAndTheEndIsMarked() {
        JobRecord job = placed();
        long epoch = f.epoch(job);
        logs.follow(UUID.randomUUID(), new LogStreams.Stream(job.id(), 1, 0, "stderr"), "m", 0);
        logs.push("m", 0, job.id(), 1, epoch, "stderr", 0, bytes("a\n"), false);
        logs.push("m", 0, job.id(), 1, epoch, "stderr", 0, bytes("a\n"), false);
        assertThat(logs.streamEnd(new LogStreams.Stream(job.id(), 1, 0, "stderr"))).isEmpty();
        logs.push("m", 0, job.id(), 1, epoch, "stderr", 2, bytes("b\n"), true);

        assertThat(logs.chunksAfter(new LogStreams.Stream(job.id(), 1, 0, "stderr"), 0, 10)).extracting(LogStreams.Chunk::offset)
                .containsExactly(0L, 2L);
        assertThat(logs.chunksAfter(new LogStreams.Stream(job.id(), 1, 0, "stderr"), 2, 10)).extracting(LogStreams.Chunk::offset)
                .containsExactly(2L);
        assertThat(logs.streamEnd(new LogStreams.Stream(job.id(), 1, 0, "stderr"))).contains(4L);
    }

    @Test
    void aStreamKeepsAtMostItsCapOfChunks() {
        JobRecord job = placed();
        long epoch = f.epoch(job);
        byte[] chunk = new byte[LogLimits.PUSH_MAX_BYTES];
        int pushes = (int) (LogLimits.STORED_PER_STREAM / chunk.length) + 3;
        for (int i = 0; i < pushes; i++) {
            logs.push("m", 0, job.id(), 1, epoch, "stdout", (long) i * chunk.length, chunk, false);
        }
        Long stored = f.jdbc.sql("select sum(octet_length(data)) from log_chunks where job_id = :j")
                .param("j", job.id()).query(Long.class).single();
        assertThat(stored).isLessThanOrEqualTo(LogLimits.STORED_PER_STREAM);
        assertThat(logs.chunksAfter(new LogStreams.Stream(job.id(), 1, 0, "stdout"), 0, 1).getFirst().offset())
                .isEqualTo((long) (pushes * chunk.length) - LogLimits.STORED_PER_STREAM);
    }

    /** Pushes that step backwards keep no more than forward ones: the window is below the furthest byte stored. */
    @Test
    void pushesGoingBackwardsKeepNoMoreThanTheCap() {
        JobRecord job = placed();
        long epoch = f.epoch(job);
        byte[] chunk = new byte[LogLimits.PUSH_MAX_BYTES];
        long step = LogLimits.STORED_PER_STREAM + chunk.length;
        int pushes = (int) (LogLimits.STORED_PER_STREAM / chunk.length) + 12;
        for (int i = pushes - 1; i >= 0; i--) {
            logs.push("m", 0, job.id(), 1, epoch, "stdout", i * step, chunk, false);
        }
        Long stored = f.jdbc.sql("select sum(octet_length(data)) from log_chunks where job_id = :j")
                .param("j", job.id()).query(Long.class).single();
        assertThat(stored).isLessThanOrEqualTo(LogLimits.STORED_PER_STREAM);
    }

    /**
     * Only the machine's current incarnation pushes, and only for attempts that ran in it: a machine reset (or joined
     * again) is fenced by the database, whatever a replica remembers of its old credential.
     */
    @Test
    void aPushOfAnotherIncarnationOrForAnAttemptEndedBeforeTheJoinIsFenced() {
        MachineStore machines = new MachineStore(f.jdbc, clock);
        long first = machines.join("joined", "eu", Map.of(), null, 64_000, 65_536, 0, new byte[] {1});
        JobSpec spec = StoreFixture.aJob("incarnations");
        JobRecord job = f.jobs.transition(((Submission.Accepted) f.jobs.submit(f.tenant, spec, null)).job(),
                Transition.admit()).orElseThrow();
        f.jobs.inTransaction(() -> placement.commit(List.of(new PlacementStore.NewAttempt(
                placement.reclaim(List.of(job.id())).getFirst(), "joined", 1000, 256, 0)), List.of(), Duration.ofSeconds(30)));
        long epoch = f.epoch(f.jobs.get(job.id()).orElseThrow());
        assertThat(logs.push("joined", first, job.id(), 1, epoch, "stdout", 0, bytes("a\n"), false))
                .isNotEqualTo(PushOutcome.FENCED);
        assertThat(logs.push("joined", first - 1, job.id(), 1, epoch, "stdout", 2, bytes("b\n"), false))
                .as("an older incarnation").isEqualTo(PushOutcome.FENCED);

        new MachineStatusStore(f.jdbc, clock).reset("joined", "reset by the test");
        assertThat(logs.push("joined", first, job.id(), 1, epoch, "stdout", 2, bytes("b\n"), false))
                .as("the incarnation the reset ended").isEqualTo(PushOutcome.FENCED);

        new AttemptReports(f.jdbc, f.jobs, new SecureRandom()).endLiveAttempts("joined",
                FailureReason.MACHINE_LOST);
        clock.advance(Duration.ofSeconds(1));
        long again = machines.join("joined", "eu", Map.of(), null, 64_000, 65_536, 0, new byte[] {2});
        assertThat(logs.push("joined", again, job.id(), 1, epoch, "stdout", 2, bytes("forged\n"), false))
                .as("an attempt that ended before this incarnation joined is not its own").isEqualTo(PushOutcome.FENCED);
    }

    @Test
    void followsAreTheMachinesUntilTheyExpireAndThenTheirChunksGo() {
        JobRecord job = placed();
        long epoch = f.epoch(job);
        UUID reader = UUID.randomUUID();
        UUID tailReader = UUID.randomUUID();
        Instant before = clock.instant();
        clock.advance(Duration.ofMillis(1));
        logs.follow(reader, new LogStreams.Stream(job.id(), 1, 0, "stdout"), "m", 0);
        logs.follow(tailReader, new LogStreams.Stream(job.id(), 1, 0, "stdout"), "m", -100);
        assertThat(logs.followsOn("m")).contains(new LogFollow(job.id(), 1, "stdout", -100));
        assertThat(logs.followedMachines()).containsKey("m");
        assertThat(logs.followedMachines().get("m")).isAfterOrEqualTo(before);
        logs.push("m", 0, job.id(), 1, epoch, "stdout", 0, bytes("x\n"), false);

        logs.unfollow(tailReader);
        clock.advance(LogLimits.FOLLOW_TTL);
        assertThat(logs.followsOn("m")).noneMatch(fl -> fl.jobId().equals(job.id()));
        assertThat(logs.followedMachines()).doesNotContainKey("m"); // a heartbeat of m asks no more
        assertThat(logs.push("m", 0, job.id(), 1, epoch, "stdout", 2, bytes("y\n"), false))
                .isEqualTo(PushOutcome.NOT_FOLLOWED);

        clock.advance(LogLimits.UNFOLLOWED_RETENTION.plusMillis(1));
        logs.cleanup(LogLimits.UNFOLLOWED_RETENTION, LogLimits.CHUNK_RETENTION);
        assertThat(logs.chunksAfter(new LogStreams.Stream(job.id(), 1, 0, "stdout"), 0, 10)).isEmpty();
    }
}
