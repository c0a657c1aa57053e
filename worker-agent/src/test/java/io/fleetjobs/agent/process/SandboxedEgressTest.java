package io.fleetjobs.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A sandboxed job cannot connect where its agent's nftables rules deny it (the scheduler's agent API, the platform's
 * ports), while it still reaches anything else and the agent itself, root, reaches everything: real sockets opened by
 * this test, a real job process trying them. Root, a working sandbox and nft (nftables) only.
 */
class SandboxedEgressTest {
    static final int FIRST_UID = 62500;
    static final String TABLE = "fleetjobs_test_" + UUID.randomUUID().toString().substring(0, 8);

    Path workDir;
    ProcessRunner runner;
    ServerSocket denied;
    ServerSocket allowed;

    static SandboxSettings settings() {
        return new SandboxSettings(true, FIRST_UID, 50, 16L << 20, "fleetjobs-egress-test", 64, 10, 512, 0,
                Duration.ofMillis(100), Duration.ofHours(1));
    }

    @BeforeAll
    static void needsRootASandboxAndNftables() {
        assumeTrue(ProcessRunner.agentUid() == 0, "not root: no sandbox, no nftables rules (tests skipped)");
        Optional<String> probe = ProcessRunner.probe(settings());
        assumeTrue(probe.isEmpty(), () -> "the sandbox does not work here: " + probe.orElse(""));
        Optional<String> nft = EgressFence.apply(TABLE, new Egress(List.of()), FIRST_UID, 50);
        assumeTrue(nft.isEmpty(), () -> "nftables does not work here: " + nft.orElse(""));
    }

    @org.junit.jupiter.api.AfterAll
    static void noTableLeft() {
        if (ProcessRunner.agentUid() == 0) {
            EgressFence.remove(TABLE);
        }
    }

    @BeforeEach
    void aSandboxedRunnerAndTwoListeningSockets() throws Exception {
        workDir = Files.createDirectories(SandboxedRunnerTest.testsRoot().resolve(UUID.randomUUID().toString()));
        Files.setPosixFilePermissions(workDir.getParent(), PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(workDir, PosixFilePermissions.fromString("rwx--x--x"));
        runner = new ProcessRunner(workDir.resolve("machine"), 1 << 20, 8192, Duration.ofMillis(500),
                InstantSource.system(), ProcessRunner.DEFAULT_PASS_ENV, settings(), Isolation.SANDBOX, null);
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        denied = new ServerSocket(0, 50, loopback);
        allowed = new ServerSocket(0, 50, loopback);
    }

    @AfterEach
    void removeTheRulesAndWhatIsLeft() throws Exception {
        EgressFence.remove(TABLE);
        if (denied != null) {
            denied.close();
            allowed.close();
        }
        SandboxedRunnerTest.endAttemptsAndRemove(runner, workDir);
    }

    /** What a job printed after trying to connect to each port: "PORT connected" or "PORT refused". */
    String jobTries(int... ports) throws Exception {
        StringBuilder script = new StringBuilder("echo uid=$(id -u);");
        for (int port : ports) {
            script.append(" if (exec 3<>/dev/tcp/127.0.0.1/").append(port).append(") 2>/dev/null; then echo ")
                    .append(port).append(" connected; else echo ").append(port).append(" refused; fi;");
        }
        RunningAttempt attempt = runner.start(new AttemptKey(UUID.randomUUID(), 1),
                List.of("bash", "-c", script.toString()), Map.of(), Requested.NOTHING);
        Outcome out = attempt.exit().get(30, TimeUnit.SECONDS);
        assertThat(out.exitCode()).as(out.stdoutTail() + out.stderrTail()).isZero();
        assertThat(out.stdoutTail()).as("the job ran as one of the attempts' uids")
                .containsPattern("uid=625[0-4][0-9]\\b");
        return out.stdoutTail();
    }

    @Test
    void aJobIsRefusedWhereTheRulesDenyAndReachesTheRestWhileTheAgentReachesBoth() throws Exception {
        assertThat(jobTries(denied.getLocalPort(), allowed.getLocalPort()))
                .as("without rules, the job reaches both ports (so what follows can fail)")
                .contains(denied.getLocalPort() + " connected").contains(allowed.getLocalPort() + " connected");

        Egress egress = new Egress(Egress.parse(List.of("127.0.0.1:" + denied.getLocalPort()), Egress.Resolver.DNS));
        assertThat(EgressFence.apply(TABLE, egress, FIRST_UID, 50)).isEmpty();

        assertThat(jobTries(denied.getLocalPort(), allowed.getLocalPort()))
                .contains(denied.getLocalPort() + " refused").contains(allowed.getLocalPort() + " connected");
        try (Socket agent = new Socket("127.0.0.1", denied.getLocalPort())) {
            assertThat(agent.isConnected()).as("the agent, root, is not matched").isTrue();
        }
    }

    @Test
    void theJoinSaysEgressIsNotHeldUntilTheRulesAreApplied() throws Exception {
        assertThat(runner.isolationGaps()).as("this runner has no cgroups either").containsSubsequence("cgroups", "egress");

        assertThat(runner.fenceEgress(TABLE, new Egress(List.of()))).isEmpty();

        assertThat(runner.isolationGaps()).contains("cgroups").doesNotContain("egress");
        Path record = workDir.resolve("machine").resolve(ProcessRunner.EGRESS_TABLE_FILE);
        assertThat(Files.readString(record).strip()).as("the table's name, for a launcher to remove it after a kill")
                .isEqualTo(TABLE);
        assertThat(runner.unfenceEgress(TABLE)).isEmpty();
        assertThat(record).as("removed with the table").doesNotExist();
        assertThat(runner.isolationGaps()).contains("egress");
        assertThat(new ProcessRunner(workDir.resolve("plain"), 1 << 20, 8192, Duration.ofMillis(500),
                InstantSource.system(), ProcessRunner.DEFAULT_PASS_ENV, settings(), Isolation.NONE, null).isolationGaps())
                .as("no sandbox: nothing it could hold").isEmpty();
    }

    @Test
    void aPortDeniedOnEveryAddressAndAppliedTwiceStaysOneSetOfRules() throws Exception {
        Egress egress = new Egress(Egress.parse(List.of("*:" + denied.getLocalPort()), Egress.Resolver.DNS));
        assertThat(EgressFence.apply(TABLE, egress, FIRST_UID, 50)).isEmpty();
        assertThat(EgressFence.apply(TABLE, egress, FIRST_UID, 50)).as("an agent's restart replaces its table").isEmpty();

        assertThat(jobTries(denied.getLocalPort(), allowed.getLocalPort()))
                .contains(denied.getLocalPort() + " refused").contains(allowed.getLocalPort() + " connected");

        assertThat(EgressFence.remove(TABLE)).isEmpty();
        assertThat(jobTries(denied.getLocalPort())).as("the table removed, nothing is left of it")
                .contains(denied.getLocalPort() + " connected");
    }
}
