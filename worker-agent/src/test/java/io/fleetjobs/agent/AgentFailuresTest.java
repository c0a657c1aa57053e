package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.CommandNotStartableException;
import io.fleetjobs.agent.process.ProcessRunner;
import io.fleetjobs.agent.process.StartFailedException;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.agent.AttemptReport;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a failure to start is put: the job's (its command) or the platform's (everything else). */
class AgentFailuresTest {
    static final Instant NOW = Instant.parse("2030-01-02T03:04:05Z");

    @TempDir
    Path workDir;

    @Test
    void twoHundredStartsOfAMissingCommandFailFastAsTheJobsFailureWithTheCause() {
        ProcessRunner runner = new ProcessRunner(workDir, 1000, 100, Duration.ofMillis(100), InstantSource.fixed(NOW));
        long began = System.nanoTime();
        for (int i = 0; i < 200; i++) {
            AttemptKey key = new AttemptKey(UUID.randomUUID(), 1);
            AttemptReport report;
            try {
                runner.start(key, List.of("no-such-command-" + i, "--flag"), Map.of("PATH", "/usr/bin:/bin"));
                throw new AssertionError("started a command that does not exist");
            } catch (StartFailedException e) {
                report = Agent.startFailure(key, 7, "m-1", e, NOW);
            }
            assertThat(report.state()).isEqualTo(AttemptState.FAILED);
            assertThat(report.failureReason()).isEqualTo(FailureReason.COMMAND_NOT_STARTABLE);
            assertThat(report.failureReason().failureClass()).isEqualTo(FailureReason.FailureClass.USER);
            assertThat(report.exitCode()).isEqualTo(127);
            assertThat(report.stderrTail()).contains("command not found: no-such-command-" + i)
                    .contains("PATH=/usr/bin:/bin");
        }
        // no process was spawned for any of them: the lookup happens before the fork
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(10));
        assertThat(runner.running()).isEmpty();
    }

    @Test
    void aPlatformFaultStaysStartFailed() {
        AttemptKey key = new AttemptKey(UUID.randomUUID(), 2);
        AttemptReport report = Agent.startFailure(key, 3, "m-1",
                new StartFailedException("attempt x: cannot make its cgroup (v1 under fleetjobs-agent): No space"), NOW);
        assertThat(report.failureReason()).isEqualTo(FailureReason.START_FAILED);
        assertThat(report.failureReason().failureClass()).isEqualTo(FailureReason.FailureClass.INFRASTRUCTURE);
        assertThat(report.exitCode()).isNull();
        assertThat(report.stderrTail()).contains("cgroup");
    }

    @Test
    void aNoteOfTheAgentEndsTheStderrTail() {
        AttemptReport r = new AttemptReport(UUID.randomUUID(), 1, 1, "m", AttemptState.FAILED, 137,
                FailureReason.OOM_KILLED, NOW, NOW, "", "Traceback ...");
        assertThat(Agent.withNote(r, "OOM_KILLED: used more than its 512 MiB (limit 576 MiB with headroom)").stderrTail())
                .isEqualTo("Traceback ...\n[fleetjobs-agent] OOM_KILLED: used more than its 512 MiB (limit 576 MiB with headroom)\n");
    }

    @Test
    void aNotExecutableCommandIs126() {
        var e = new CommandNotStartableException("attempt x: command not executable", 126);
        AttemptReport report = Agent.startFailure(new AttemptKey(UUID.randomUUID(), 1), 1, "m", e, NOW);
        assertThat(report.exitCode()).isEqualTo(126);
        assertThat(report.failureReason()).isEqualTo(FailureReason.COMMAND_NOT_STARTABLE);
    }
}
