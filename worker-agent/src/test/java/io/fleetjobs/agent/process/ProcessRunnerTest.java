package io.fleetjobs.agent.process;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real processes, through {@code setsid} and {@code kill}: Linux only, as the agent is. */
class ProcessRunnerTest {
    static final Instant NOW = Instant.parse("2030-01-02T03:04:05Z");
    static final Duration GRACE = Duration.ofMillis(500);
    static final Duration PATIENCE = Duration.ofSeconds(15);

    @TempDir
    Path workDir;

    final InstantSource clock = InstantSource.fixed(NOW);
    ProcessRunner runner;

    ProcessRunner runner() {
        if (runner == null) {
            runner = new ProcessRunner(workDir, 1 << 20, 4096, GRACE, clock);
        }
        return runner;
    }

    @AfterEach
    void stopWhatIsLeft() {
        if (runner != null) {
            for (RunningAttempt attempt : runner.running()) {
                attempt.terminate();
                attempt.exit().join();
            }
        }
    }

    static AttemptKey aKey() {
        return new AttemptKey(UUID.randomUUID(), 1);
    }

    RunningAttempt start(String... argv) throws StartFailedException {
        return runner().start(aKey(), List.of(argv), Map.of());
    }

    static Outcome outcome(RunningAttempt attempt) throws Exception {
        return attempt.exit().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    /** Alive and not a zombie: an orphan whose new parent never reaps it is dead all the same. */
    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
                && ProcessGroups.stat(pid).map(stat -> !stat.gone()).orElse(false);
    }

    /**
     * The processes the job itself started: descendants of the job's own process, which runs under
     * the group leader (the shell that ties the group to the agent) beside that shell's watcher.
     */
    static List<Long> descendants(RunningAttempt attempt) {
        return ProcessHandle.of(attempt.pgid()).orElseThrow().children()
                .filter(child -> !child.info().commandLine().orElse("").contains("fleetjobs-attempt"))
                .flatMap(ProcessHandle::descendants).map(ProcessHandle::pid).toList();
    }

    /**
     * An attempt's two output readers block in a read of a pipe until it prints. On virtual threads each such read held
     * a carrier of the virtual thread scheduler, which has at most 256: past 128 quiet attempts nothing else that runs
     * on virtual threads ran (an attempt's exit noticed, a kill, the lease's fence), and a flood of a tenant's jobs
     * that printed nothing left its machine unable to stop any of them.
     */
    @Test
    void exitsAndKillsAreSeenWhileMoreAttemptsThanTheVirtualThreadCarriersWaitForOutput() throws Exception {
        ProcessRunner many = new ProcessRunner(workDir, 1 << 20, 4096, GRACE, clock);
        List<RunningAttempt> quiet = new ArrayList<>();
        try {
            for (int i = 0; i < 150; i++) {
                quiet.add(many.start(aKey(), List.of("sleep", "120"), Map.of()));
            }
            RunningAttempt quick = many.start(aKey(), List.of("sh", "-c", "exit 7"), Map.of());
            assertThat(quick.exit().get(PATIENCE.toSeconds(), TimeUnit.SECONDS).exitCode()).isEqualTo(7);

            RunningAttempt stopped = quiet.getFirst();
            stopped.terminate();
            assertThat(stopped.exit().get(PATIENCE.toSeconds(), TimeUnit.SECONDS).signal()).isEqualTo(15);
        } finally {
            // without the runner: on the code this guards against, its own kills never ran
            for (RunningAttempt attempt : quiet) {
                new ProcessBuilder("kill", "-KILL", "--", "-" + attempt.pgid()).start().waitFor();
            }
        }
    }

    /**
     * A job starts with every signal at its default: started as a background command of a shell without job control,
     * it ignored SIGINT and SIGQUIT (and so did all it ran), so that a Python job never saw KeyboardInterrupt and a
     * launcher could not interrupt its workers.
     */
    @Test
    void aJobStartsWithInterruptAndQuitAtTheirDefaults() throws Exception {
        Outcome outcome = outcome(start("grep", "SigIgn", "/proc/self/status"));

        assertThat(ignored(outcome.stdoutTail())).as("SIGINT, SIGQUIT ignored").isZero();
    }

    /**
     * The job's first word names a program, never a builtin of the shell tied to the agent: run in that shell's
     * foreground, {@code wait} waited for the lifeline's watcher, as long as the agent lived.
     */
    @Test
    void theJobsFirstWordIsAProgramNeverABuiltinOfTheTiedShell() throws Exception {
        // a session and group of its own, as the agent starts it: the watcher's group kill reaches nothing else
        Process tied = new ProcessBuilder("setsid", "sh", "-c", ProcessRunner.TIED_TO_AGENT, "fleetjobs-attempt", "wait").start();
        try {
            assertThat(tied.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("ended, its lifeline still open").isTrue();
            assertThat(tied.exitValue()).as("no program of that name").isEqualTo(127);
        } finally {
            tied.destroyForcibly();
            tied.getOutputStream().close(); // the lifeline: its watcher ends the group
        }
    }

    /** Of a {@code SigIgn:} line of /proc/self/status, the bits of SIGINT (2) and SIGQUIT (3). */
    static long ignored(String status) {
        String mask = status.substring(status.indexOf("SigIgn:") + 7).strip().split("\\s")[0];
        return Long.parseUnsignedLong(mask, 16) & 0b110;
    }

    @Test
    void echoExitsZeroWithItsOutputInTheTailAndTheFile() throws Exception {
        RunningAttempt attempt = start("echo", "hi");
        Outcome outcome = outcome(attempt);

        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.signal()).isNull();
        assertThat(outcome.stdoutTail()).isEqualTo("hi\n");
        assertThat(outcome.stderrTail()).isEmpty();
        assertThat(outcome.finishedAt()).isEqualTo(NOW);
        assertThat(attempt.startedAt()).isEqualTo(NOW);
        Path directory = workDir.resolve("attempts").resolve(attempt.key().jobId() + "-1");
        assertThat(attempt.directory()).isEqualTo(directory);
        assertThat(attempt.stdoutFile()).isEqualTo(directory.resolve("stdout.log")).hasContent("hi");
        assertThat(Files.readString(attempt.stdoutFile())).isEqualTo("hi\n");
        assertThat(attempt.stdoutTail()).isEqualTo("hi\n");
        assertThat(attempt.isAlive()).isFalse();
        assertThat(workDir.resolve("running")).isEmptyDirectory();
        assertThat(runner().running()).isEmpty();
    }

    @Test
    void theExitCodeIsTheCommands() throws Exception {
        Outcome outcome = outcome(start("sh", "-c", "exit 3"));

        assertThat(outcome.exitCode()).isEqualTo(3);
        assertThat(outcome.signal()).isNull();
    }

    /**
     * A TERM to the group at once, from the job itself, while the shell that holds it is still starting: the shell
     * outlasts it and the status is the job's (the shell set its trap after starting the job, so such a TERM ended
     * it with 143; a wait a signal cut short could also end it with 143 when the job was gone by the next check).
     */
    @Test
    void aTermToTheGroupAtTheJobsFirstStepStillGivesTheJobsStatus() throws Exception {
        for (int i = 0; i < 20; i++) {
            Outcome outcome = outcome(start("sh", "-c", "trap 'exit 3' TERM; kill -TERM 0; while :; do sleep 0.05; done"));

            assertThat(outcome.exitCode()).as("try %d", i).isEqualTo(3);
        }
    }

    @Test
    void standardErrorIsCapturedApart() throws Exception {
        RunningAttempt attempt = start("sh", "-c", "echo oops >&2; echo fine");
        Outcome outcome = outcome(attempt);

        assertThat(outcome.stderrTail()).isEqualTo("oops\n");
        assertThat(outcome.stdoutTail()).isEqualTo("fine\n");
        assertThat(Files.readString(attempt.stderrFile())).isEqualTo("oops\n");
    }

    @Test
    void theProcessSeesTheAgentsEnvironmentTheJobsAndItsAttempt() throws Exception {
        AttemptKey key = new AttemptKey(UUID.randomUUID(), 2);
        Map<String, String> env = new HashMap<>();
        env.put("GREETING", "hello");
        env.put("JOBS_JOB_ID", "the job may not say who it is");
        env.put("HOME", null);
        RunningAttempt attempt = runner().start(key,
                List.of("sh", "-c", "echo \"$JOBS_JOB_ID/$JOBS_ATTEMPT/$GREETING/${PATH:+has-path}/${HOME-no-home}\""), env);

        assertThat(outcome(attempt).stdoutTail()).isEqualTo(key.jobId() + "/2/hello/has-path/no-home\n");
    }

    @Test
    void theAgentsOwnVariablesDoNotReachTheJob() throws Exception {
        assertThat(System.getenv("AGENT_ONLY_SECRET")).as("set for this test by the build").isEqualTo("not-for-jobs");
        RunningAttempt attempt = runner().start(aKey(),
                List.of("sh", "-c", "echo \"${AGENT_ONLY_SECRET-unset}/${PATH:+has-path}\"; env | grep -c '^JOBS_' "), Map.of());
        assertThat(outcome(attempt).stdoutTail()).isEqualTo("unset/has-path\n2\n"); // JOBS_JOB_ID and JOBS_ATTEMPT only

        runner = new ProcessRunner(workDir, 1000, 100, GRACE, clock, List.of("PATH", "AGENT_ONLY_*"));
        RunningAttempt passed = runner.start(aKey(), List.of("sh", "-c", "echo \"$AGENT_ONLY_SECRET/${HOME-no-home}\""),
                Map.of());
        assertThat(outcome(passed).stdoutTail()).isEqualTo("not-for-jobs/no-home\n");
    }

    @Test
    void itRunsInAFreshDirectoryWithStandardInputClosed() throws Exception {
        AttemptKey key = aKey();
        Path directory = workDir.resolve("attempts").resolve(key.jobId() + "-1");
        Files.createDirectories(directory.resolve("old"));
        Files.writeString(directory.resolve("old/file"), "from before");

        RunningAttempt attempt = runner().start(key, List.of("sh", "-c", "cat; ls -A"), Map.of());

        Outcome outcome = outcome(attempt);
        assertThat(outcome.exitCode()).isZero();
        assertThat(outcome.stdoutTail()).isEqualTo("stderr.log\nstdout.log\n");
    }

    @Test
    void outputPastTheCapIsReadButNotWrittenAndTheTailKeepsTheLastBytes() throws Exception {
        runner = new ProcessRunner(workDir, 1000, 100, GRACE, clock);
        String expected = IntStream.rangeClosed(1, 20_000).mapToObj(Integer::toString).collect(Collectors.joining("\n", "", "\n"));

        RunningAttempt attempt = start("seq", "1", "20000");
        Outcome outcome = outcome(attempt);

        assertThat(outcome.exitCode()).isZero();
        assertThat(Files.size(attempt.stdoutFile())).isEqualTo(1000);
        assertThat(Files.readString(attempt.stdoutFile())).isEqualTo(expected.substring(0, 1000));
        assertThat(outcome.stdoutTail()).isEqualTo(expected.substring(expected.length() - 100));
        assertThat(attempt.stdoutTail()).isEqualTo(outcome.stdoutTail());
    }

    @Test
    void theProcessLeadsItsOwnGroupAndSessionWhichIsRecordedWhileItRuns() throws Exception {
        RunningAttempt attempt = start("sleep", "600");
        long pid = attempt.pgid();

        await().atMost(PATIENCE).until(() -> ProcessGroups.stat(pid).map(stat -> stat.pgrp() == pid).orElse(false));
        assertThat(ProcessGroups.stat(pid).orElseThrow().session()).isEqualTo(pid);
        Path record = workDir.resolve("running").resolve(attempt.key().jobId() + "-1.pgid");
        assertThat(PgidRecord.read(record).pgid()).isEqualTo(pid);
        assertThat(attempt.isAlive()).isTrue();
        assertThat(runner().running()).containsExactly(attempt);

        attempt.terminate();
        Outcome outcome = outcome(attempt);

        assertThat(outcome.exitCode()).isEqualTo(143);
        assertThat(outcome.signal()).isEqualTo(15);
        assertThat(record).doesNotExist();
        assertThat(alive(pid)).isFalse();
    }

    @Test
    void aProcessThatIgnoresTermIsKilledAfterTheGrace() throws Exception {
        RunningAttempt attempt = start("sh", "-c", "trap '' TERM; echo ready; sleep 600");
        await().atMost(PATIENCE).until(() -> attempt.stdoutTail().contains("ready"));

        long asked = System.nanoTime();
        attempt.terminate();
        attempt.terminate();
        Outcome outcome = outcome(attempt);

        assertThat(Duration.ofNanos(System.nanoTime() - asked)).isGreaterThanOrEqualTo(GRACE);
        assertThat(outcome.exitCode()).isEqualTo(137);
        assertThat(outcome.signal()).isEqualTo(9);
        assertThat(outcome.stdoutTail()).isEqualTo("ready\n");
        attempt.terminate();
    }

    @Test
    void terminateEndsTheWholeTree() throws Exception {
        RunningAttempt attempt = start("sh", "-c", "sleep 600 & sleep 600 & wait");
        await().atMost(PATIENCE).until(() -> descendants(attempt).size() == 2);
        List<Long> children = descendants(attempt);

        attempt.terminate();
        Outcome outcome = outcome(attempt);

        assertThat(outcome.exitCode()).isEqualTo(143);
        assertThat(alive(attempt.pgid())).isFalse();
        assertThat(children).noneMatch(ProcessRunnerTest::alive);
        assertThat(ProcessGroups.alive(attempt.pgid())).isFalse();
    }

    @Test
    void anOrphanThatIgnoresTermOutlivesItsLeaderOnlyUntilTheGraceEnds() throws Exception {
        RunningAttempt attempt = start("sh", "-c", "(trap '' TERM; echo ready; exec sleep 600) & exec sleep 600");
        await().atMost(PATIENCE).until(() -> attempt.stdoutTail().contains("ready"));
        List<Long> children = descendants(attempt);
        assertThat(children).hasSize(1);

        long asked = System.nanoTime();
        attempt.terminate();
        await().atMost(PATIENCE).until(() -> !alive(attempt.pgid()));
        assertThat(children).allMatch(ProcessRunnerTest::alive);
        Outcome outcome = outcome(attempt);

        assertThat(Duration.ofNanos(System.nanoTime() - asked)).isGreaterThanOrEqualTo(GRACE);
        assertThat(outcome.exitCode()).isEqualTo(143);
        assertThat(children).noneMatch(ProcessRunnerTest::alive);
    }

    @Test
    void whatTheLeaderLeftBehindIsStoppedWhenItExits() throws Exception {
        RunningAttempt attempt = start("sh", "-c", "sleep 600 & echo $!");
        Outcome outcome = outcome(attempt);

        assertThat(outcome.exitCode()).isZero();
        long orphan = Long.parseLong(outcome.stdoutTail().strip());
        assertThat(alive(orphan)).isFalse();
        assertThat(workDir.resolve("running")).isEmptyDirectory();
    }

    @Test
    void startingARunningAttemptAgainReturnsIt() throws Exception {
        AttemptKey key = aKey();
        RunningAttempt first = runner().start(key, List.of("sleep", "600"), Map.of());

        assertThat(runner().start(key, List.of("sleep", "600"), Map.of())).isSameAs(first);
        assertThat(runner().running()).containsExactly(first);
    }

    @Test
    void anArgumentOrAVariableTooLongForExecIsTheJobsFailureNotTheMachines() {
        String tooLong = "é".repeat(70_000); // 140,000 bytes of UTF-8: past Linux's 128 KiB for one string
        assertThatThrownBy(() -> start("echo", tooLong)).isInstanceOfSatisfying(CommandNotStartableException.class, e -> {
            assertThat(e.exitCode()).isEqualTo(CommandNotStartableException.NOT_EXECUTABLE);
            assertThat(e.getMessage()).contains("too long");
        });
        assertThatThrownBy(() -> runner().start(aKey(), List.of("echo"), Map.of("BIG", tooLong)))
                .isInstanceOf(CommandNotStartableException.class);
        // each short enough, but 7 MB together: past what exec takes with any stack limit (at most 6 MiB)
        List<String> many = new ArrayList<>(List.of("echo"));
        many.addAll(Collections.nCopies(60, "x".repeat(120_000)));
        assertThatThrownBy(() -> runner().start(aKey(), many, Map.of()))
                .isInstanceOfSatisfying(CommandNotStartableException.class,
                        e -> assertThat(e.getMessage()).contains("too long together"));
    }

    @Test
    void aCommandThatDoesNotExistFailsToStart() {
        assertThatThrownBy(() -> start("no-such-command-here", "x"))
                .isInstanceOf(StartFailedException.class)
                .hasMessageContaining("command not found")
                .hasMessageContaining("no-such-command-here");
        assertThatThrownBy(() -> start("./missing.sh"))
                .isInstanceOf(StartFailedException.class)
                .hasMessageContaining("./missing.sh");
        assertThatThrownBy(() -> runner().start(aKey(), List.of(), Map.of()))
                .isInstanceOf(StartFailedException.class)
                .hasMessageContaining("empty");
        assertThat(runner().running()).isEmpty();
        assertThat(workDir.resolve("running")).isEmptyDirectory();
    }

    @Test
    void aWorkDirectoryThatCannotBeMadeFailsTheStart() throws IOException {
        Path notADirectory = Files.writeString(workDir.resolve("a-file"), "in the way");
        runner = new ProcessRunner(notADirectory, 1000, 100, GRACE, clock);

        assertThatThrownBy(() -> start("echo", "hi"))
                .isInstanceOf(StartFailedException.class)
                .hasMessageContaining("cannot make its working directory");
    }

    @Test
    void aNewRunnerKillsTheGroupsThatAPreviousOneLeft() throws Exception {
        ProcessRunner previous = new ProcessRunner(workDir, 1000, 100, GRACE, clock);
        RunningAttempt leftover = previous.start(aKey(), List.of("sh", "-c", "sleep 600 & exec sleep 600"), Map.of());
        try {
            await().atMost(PATIENCE).until(() -> descendants(leftover).size() == 1);
            List<Long> children = descendants(leftover);

            ProcessRunner restarted = new ProcessRunner(workDir, 1000, 100, GRACE, clock);
            List<AttemptKey> killed = restarted.killLeftovers();

            assertThat(killed).containsExactly(leftover.key());
            assertThat(alive(leftover.pgid())).isFalse();
            assertThat(children).noneMatch(ProcessRunnerTest::alive);
            assertThat(workDir.resolve("running")).isEmptyDirectory();
            assertThat(restarted.killLeftovers()).isEmpty();
            assertThat(outcome(leftover).exitCode()).isEqualTo(143);
        } finally {
            leftover.terminate();
        }
    }

    @Test
    void killLeftoversSparesAGroupIdThatNowBelongsToAnotherProcessOrAnotherBoot() throws Exception {
        Process stranger = new ProcessBuilder("setsid", "sleep", "600").start();
        try {
            long pid = stranger.pid();
            await().atMost(PATIENCE).until(() -> ProcessGroups.stat(pid).map(stat -> stat.pgrp() == pid).orElse(false));
            long startTicks = ProcessGroups.stat(pid).orElseThrow().startTicks();
            String bootId = ProcessGroups.bootId().orElseThrow();
            Path running = Files.createDirectories(workDir.resolve("running"));
            AttemptKey reused = aKey();
            AttemptKey rebooted = aKey();
            new PgidRecord(reused, pid, bootId, startTicks - 1).write(running.resolve(reused.fileName() + ".pgid"));
            new PgidRecord(rebooted, pid, "another-boot", startTicks).write(running.resolve(rebooted.fileName() + ".pgid"));

            assertThat(runner().killLeftovers()).containsExactlyInAnyOrder(reused, rebooted);
            assertThat(stranger.isAlive()).isTrue();
            assertThat(running).isEmptyDirectory();
        } finally {
            stranger.destroyForcibly();
        }
    }

    @Test
    void aStartWaitsForTheLeftoversOfTheSameAttemptToBeKilled() throws Exception {
        AttemptKey key = aKey();
        Path running = Files.createDirectories(workDir.resolve("running"));
        new PgidRecord(key, 999_999_999L, "", -1).write(running.resolve(key.fileName() + ".pgid"));

        assertThatThrownBy(() -> runner().start(key, List.of("echo"), Map.of()))
                .isInstanceOf(StartFailedException.class)
                .hasMessageContaining("killLeftovers");
        assertThat(runner().killLeftovers()).containsExactly(key);
        assertThat(outcome(runner().start(key, List.of("echo"), Map.of())).exitCode()).isZero();
    }

    @Test
    void multibyteOutputReadsBackAsText() throws Exception {
        Outcome outcome = outcome(start("printf", "gr\\303\\274\\303\\237e \\342\\234\\223\\n"));

        assertThat(outcome.stdoutTail()).isEqualTo("grüße ✓\n");
        assertThat(outcome.stdoutTail().getBytes(UTF_8)).hasSize(12);
    }
}
