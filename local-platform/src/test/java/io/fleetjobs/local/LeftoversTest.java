package io.fleetjobs.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a launcher that died leaves, found and ended by the next: its components' processes, an agent's job groups. */
class LeftoversTest {
    @TempDir
    Path dir;
    private Process process;

    @AfterEach
    void end() {
        if (process != null) {
            process.destroyForcibly();
        }
    }

    @Test
    void thisBootsIdIsReadWhole() {
        Assumptions.assumeTrue(Files.exists(Path.of("/proc/sys/kernel/random/boot_id")));
        Assertions.assertThat(Processes.bootId()).get().asString().hasSize(36);
    }

    @Test
    void aRecordedProcessThatStillRunsIsALeftoverAndEveryRecordGoes() throws IOException {
        process = new ProcessBuilder("sleep", "60").start();
        PidFiles pids = new PidFiles(dir);
        pids.record("job-service", process.toHandle());
        Files.writeString(dir.resolve("kafka.pid"), "999999999 1\n"); // gone
        Files.writeString(dir.resolve("agent-1.pid"), ProcessHandle.current().pid() + " 1\n"); // alive, started at another time

        List<PidFiles.Leftover> leftovers = pids.takeLeftovers();

        assertThat(leftovers).extracting(PidFiles.Leftover::component).containsExactly("job-service");
        assertThat(leftovers.getFirst().process().pid()).isEqualTo(process.pid());
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void aForgottenComponentLeavesNoRecord() {
        PidFiles pids = new PidFiles(dir);
        pids.record("agent-1", ProcessHandle.current());
        pids.forget("agent-1");
        assertThat(pids.takeLeftovers()).isEmpty();
    }

    @Test
    void theEgressTableAKilledAgentNamedIsRemovedAndNothingElseIsHandedToNft() throws Exception {
        Files.writeString(dir.resolve(AgentJobs.EGRESS_TABLE_FILE), "fleetjobs_x; flush ruleset\n");
        AgentJobs.unfence(dir);
        assertThat(dir.resolve(AgentJobs.EGRESS_TABLE_FILE)).as("not a table's name: left alone").exists();

        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "not root: no nft");
        String table = "fleetjobs_leftover_" + UUID.randomUUID().toString().substring(0, 8);
        Assumptions.assumeTrue(nft("add", "table", "inet", table) == 0, "nft does not work here");
        try {
            Files.writeString(dir.resolve(AgentJobs.EGRESS_TABLE_FILE), table + "\n");
            AgentJobs.unfence(dir);
            assertThat(nft("list", "table", "inet", table)).as("the table is gone").isNotZero();
            assertThat(dir.resolve(AgentJobs.EGRESS_TABLE_FILE)).doesNotExist();
        } finally {
            nft("delete", "table", "inet", table);
        }
    }

    private static int nft(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("nft"));
        command.addAll(List.of(args));
        try {
            Process nft = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return nft.waitFor(10, TimeUnit.SECONDS) ? nft.exitValue() : -1;
        } catch (IOException e) {
            return -1; // no nft
        }
    }

    @Test
    void theGroupsAnAgentRecordedAreEnded() throws IOException {
        process = new ProcessBuilder("setsid", "sleep", "60").start(); // a group of its own, as the agent runs a job
        long pgid = process.pid();
        long startTicks = Processes.stat(pgid).orElseThrow().startTicks();
        Files.writeString(dir.resolve(UUID.randomUUID() + "-1.pgid"), "jobId=" + UUID.randomUUID() + "\nattempt=1\npgid=" + pgid
                + "\nbootId=" + Processes.bootId().orElse("") + "\nstartTicks=" + startTicks + "\n");
        Files.writeString(dir.resolve(UUID.randomUUID() + "-1.pgid"), "jobId=" + UUID.randomUUID() + "\nattempt=1\npgid="
                + ProcessHandle.current().pid() + "\nbootId=\nstartTicks=1\n"); // that id is someone else's now

        assertThat(AgentJobs.recordedGroups(dir)).containsExactly(pgid);
        assertThat(AgentJobs.end(dir, List.of(), Duration.ofSeconds(5))).isEqualTo(1);
        assertThat(process.isAlive()).isFalse();
    }
}
