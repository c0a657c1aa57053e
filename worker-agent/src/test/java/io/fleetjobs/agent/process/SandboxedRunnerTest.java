package io.fleetjobs.agent.process;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetjobs.agent.CredentialFile;
import io.fleetjobs.model.FailureReason;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sandbox and the cgroups with real processes: needs root, util-linux's unshare and setpriv, and a writable
 * cgroup hierarchy (v1 or v2). Skipped, saying why, where they are not; on the build machine they run. Every
 * assertion is on what the job itself printed, or on its cgroup's own accounting.
 */
class SandboxedRunnerTest {
    static final Duration GRACE = Duration.ofMillis(500);
    static final Duration PATIENCE = Duration.ofSeconds(30);
    /** A range of its own, so that nothing else on the machine shares these uids. */
    static final int FIRST_UID = 62000;
    static final String PARENT = "fleetjobs-test-" + UUID.randomUUID().toString().substring(0, 8);

    static Optional<Cgroups> cgroups;

    /**
     * Not under /tmp: inside the sandbox /tmp is the attempt's own tmpfs, so a path under the machine's /tmp
     * would read as missing rather than forbidden, proving nothing.
     */
    Path workDir;

    ProcessRunner runner;

    @BeforeAll
    static void needsRootNamespacesAndCgroups() {
        assumeTrue(ProcessRunner.agentUid() == 0, "not root: the sandbox and cgroups are not enforced (tests skipped)");
        Optional<String> probe = ProcessRunner.probe(settings());
        assumeTrue(probe.isEmpty(), () -> "the sandbox does not work here: " + probe.orElse(""));
        cgroups = Cgroups.detect(Path.of("/proc/self/mountinfo"), PARENT);
        assumeTrue(cgroups.isPresent(), "no writable cgroup hierarchy (v2 with memory, or v1 memory)");
    }

    static SandboxSettings settings() {
        return new SandboxSettings(true, FIRST_UID, 100, 16L << 20, PARENT, 64, 10, 512, 0, Duration.ofMillis(100),
                Duration.ofHours(1));
    }

    /**
     * Where the machine's directories go: under the build's {@code target}, unless that is under /tmp (a checkout
     * there), which a sandboxed job does not see: its /tmp is a private tmpfs. Then under /var/tmp.
     */
    static Path testsRoot() throws IOException {
        Path target = Path.of("target").toAbsolutePath();
        Path root = target.startsWith("/tmp") ? Path.of("/var/tmp", "fleetjobs-sandbox-tests") : target.resolve("sandbox-tests");
        return Files.createDirectories(root);
    }

    @BeforeEach
    void aSandboxedRunner() throws Exception {
        workDir = Files.createDirectories(testsRoot().resolve(UUID.randomUUID().toString())).toAbsolutePath();
        Files.setPosixFilePermissions(workDir.getParent(), PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(workDir, PosixFilePermissions.fromString("rwx--x--x"));
        runner = new ProcessRunner(workDir.resolve("machine"), 1 << 20, 8192, GRACE, InstantSource.system(),
                ProcessRunner.DEFAULT_PASS_ENV, settings(), Isolation.SANDBOX, cgroups.orElseThrow());
    }

    @AfterEach
    void stopWhatIsLeft() throws Exception {
        endAttemptsAndRemove(runner, workDir);
    }

    /** Ends what a test's runner still runs and removes the test's directory. */
    static void endAttemptsAndRemove(ProcessRunner runner, Path workDir) throws IOException {
        if (runner != null) {
            for (RunningAttempt attempt : runner.running()) {
                attempt.terminate();
                attempt.exit().join();
            }
        }
        if (workDir != null) {
            try (var files = Files.walk(workDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @org.junit.jupiter.api.AfterAll
    static void removeTheTestsCgroupParent() {
        if (cgroups != null && cgroups.isPresent()) {
            for (Path root : cgroups.get().roots()) {
                Cgroups.removeDirectory(root.resolve(PARENT));
            }
        }
    }

    /** A file of the tests' cgroup parent, in whichever hierarchy has it; null where none does. */
    static Path parentFile(String name) {
        return cgroups.orElseThrow().roots().stream().map(r -> r.resolve(PARENT).resolve(name)).filter(Files::exists)
                .findFirst().orElse(null);
    }

    /** Starts a sandbox's command line as the agent would, and opens its gate (no cgroup here to wait for). */
    static Process gateOpened(ProcessBuilder sandbox) throws IOException {
        Process started = sandbox.start();
        started.getOutputStream().write('\n');
        started.getOutputStream().flush();
        return started;
    }

    static AttemptKey aKey() {
        return new AttemptKey(UUID.randomUUID(), 1);
    }

    RunningAttempt sh(String script) throws StartFailedException {
        return sh(script, Map.of(), Requested.NOTHING);
    }

    RunningAttempt sh(String script, Map<String, String> env, Requested requested) throws StartFailedException {
        return runner.start(aKey(), List.of("sh", "-c", script), env, requested);
    }

    static Outcome outcome(RunningAttempt attempt) throws Exception {
        return attempt.exit().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    static void awaitOutput(RunningAttempt attempt, String text) {
        await().atMost(PATIENCE).until(() -> attempt.stdoutTail().contains(text) || !attempt.isAlive());
        assertThat(attempt.stdoutTail()).contains(text);
    }

    @Test
    void aSandboxOnAMachineWithoutAWritableCgroupHierarchyStillStartsItsJob() throws Exception {
        // the sandbox waits at a gate for its cgroup; with none to put it in, the gate must open at once
        ProcessRunner withoutCgroups = new ProcessRunner(workDir.resolve("machine-without-cgroups"), 1 << 20, 8192, GRACE,
                InstantSource.system(), ProcessRunner.DEFAULT_PASS_ENV, settings(), Isolation.SANDBOX, null);

        Outcome out = outcome(withoutCgroups.start(aKey(), List.of("sh", "-c", "echo uid=$(id -u)"), Map.of(),
                Requested.NOTHING));

        assertThat(out.exitCode()).isZero();
        assertThat(out.stdoutTail()).containsPattern("uid=620\\d\\d\\b");
    }

    /**
     * {@code execution.network} none: the job has a network of its own, with only its loopback (up), so it reaches
     * nothing of the machine's (a port another job or service listens on) while its own processes still talk over
     * 127.0.0.1; the same job on the machine's network reaches the port (so the first part can fail).
     */
    @Test
    void aJobWithANetworkOfItsOwnReachesNothingOfTheMachineButItsLoopbackWorks() throws Exception {
        try (ServerSocket machines = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            String script = "echo uid=$(id -u); echo interfaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort"
                    + " | tr '\\n' ,);"
                    + " if (exec 3<>/dev/tcp/127.0.0.1/" + machines.getLocalPort() + ") 2>/dev/null; then echo machine"
                    + " reached; else echo machine refused; fi;"
                    + " perl -MIO::Socket::INET -e '$l = IO::Socket::INET->new(Listen => 1, LocalAddr => \"127.0.0.1\","
                    + " LocalPort => 0) or die \"no listen: $!\\n\"; IO::Socket::INET->new(PeerAddr => \"127.0.0.1\","
                    + " PeerPort => $l->sockport) or die \"no loopback: $!\\n\"; print \"loopback works\\n\"'";

            Outcome own = outcome(runner.start(aKey(), List.of("bash", "-c", script), Map.of(),
                    new Requested(null, null, List.of(), true)));
            assertThat(own.exitCode()).as(own.stdoutTail() + own.stderrTail()).isZero();
            assertThat(own.stdoutTail()).containsPattern("uid=620\\d\\d\\b").contains("interfaces=lo,\n")
                    .contains("machine refused").contains("loopback works");

            Outcome host = outcome(runner.start(aKey(), List.of("bash", "-c", script), Map.of(), Requested.NOTHING));
            assertThat(host.stdoutTail()).as("on the machine's network").contains("machine reached")
                    .doesNotContain("interfaces=lo,\n");
        }
    }

    @Test
    void aNetworkOfItsOwnWithoutTheSandboxIsRefusedAtStartNotRunOnTheMachinesNetwork() {
        ProcessRunner plain = new ProcessRunner(workDir.resolve("plain"), 1 << 20, 8192, GRACE, InstantSource.system(),
                ProcessRunner.DEFAULT_PASS_ENV, settings(), Isolation.NONE, null);
        Assertions.assertThatThrownBy(() -> plain.start(aKey(), List.of("true"), Map.of(),
                        new Requested(null, null, List.of(), true)))
                .isInstanceOf(StartFailedException.class).isNotInstanceOf(CommandNotStartableException.class)
                .hasMessageContaining("execution.network none");
    }

    @Test
    void theJobRunsAsAnUnprivilegedUidOfItsOwnInItsOwnPidNamespaceWithAPrivateTmp() throws Exception {
        Files.writeString(Path.of("/tmp/fleetjobs-agent-tmp-marker"), "the machine's /tmp");
        try {
            Outcome out = outcome(sh("echo uid=$(id -u) gid=$(id -g) groups=$(id -G); echo pid=$$;"
                    + " echo procs=$(ls /proc | grep -c '^[0-9]'); echo home=$HOME pwd=$(pwd) tmpdir=$TMPDIR;"
                    + " ls /tmp/fleetjobs-agent-tmp-marker 2>&1; touch /tmp/mine && echo tmp-writable;"
                    + " stat -c 'work=%u:%a' .; env | grep -c JOBS_WORKER || true"));

            assertThat(out.exitCode()).isZero();
            Matcher uid = Pattern.compile("uid=(\\d+) gid=(\\d+) groups=(\\S+)").matcher(out.stdoutTail());
            assertThat(uid.find()).as(out.stdoutTail()).isTrue();
            int jobUid = Integer.parseInt(uid.group(1));
            assertThat(jobUid).isBetween(FIRST_UID, FIRST_UID + 99);
            assertThat(uid.group(2)).isEqualTo(uid.group(1));
            assertThat(uid.group(3)).isEqualTo(uid.group(1)); // no supplementary groups
            Matcher pid = Pattern.compile("pid=(\\d+)").matcher(out.stdoutTail());
            assertThat(pid.find()).isTrue();
            assertThat(Integer.parseInt(pid.group(1))).isLessThan(100); // numbered in its own namespace
            assertThat(procs(out.stdoutTail())).isLessThan(10);
            assertThat(out.stdoutTail()).contains("No such file").contains("tmp-writable")
                    .contains("work=" + jobUid + ":700").contains("tmpdir=/tmp");
        } finally {
            Files.deleteIfExists(Path.of("/tmp/fleetjobs-agent-tmp-marker"));
        }
    }

    @Test
    void aJobCannotReadTheAgentsSecretFileNorAnotherJobsEnvironmentWorkDirectoryOrLogs() throws Exception {
        Path secrets = Files.createDirectories(workDir.resolve("agent-secrets"));
        Files.setPosixFilePermissions(secrets, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path token = Files.writeString(secrets.resolve("join-token"), "the-join-token-itself");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("r--------"));

        RunningAttempt other = sh("echo other-started; echo mine > note; exec sleep 60",
                Map.of("OTHER_TENANT_SECRET", "s3cr3t-of-tenant-a"), Requested.NOTHING);
        awaitOutput(other, "other-started");
        long otherPid = other.pgid();
        // the other job's processes, as the machine numbers them
        List<Long> otherPids = ProcessHandle.of(otherPid).orElseThrow().descendants().map(ProcessHandle::pid).toList();
        StringBuilder probes = new StringBuilder();
        for (long pid : otherPids) {
            probes.append(" cat /proc/").append(pid).append("/environ 2>&1;");
        }
        assertThat(otherPids).isNotEmpty();
        Path otherWork = other.directory();
        Path otherLog = other.stdoutFile();

        Outcome out = outcome(sh("cat " + token + " 2>&1; echo token-rc=$?;" + probes
                + " cat " + otherWork.resolve("note") + " 2>&1; ls " + otherWork + " 2>&1;"
                + " cat " + otherLog + " 2>&1; ls " + otherWork.getParent().getParent() + " 2>&1; echo done"));

        assertThat(out.stdoutTail()).contains("Permission denied").contains("token-rc=1").contains("done")
                .doesNotContain("the-join-token-itself").doesNotContain("s3cr3t-of-tenant-a")
                .doesNotContain("other-started").doesNotContain("mine");
        // the other job's pids do not exist in this job's namespace
        assertThat(out.stdoutTail()).contains("No such file or directory");
        assertThat(other.isAlive()).isTrue();
    }

    @Test
    void aJobWritesItsWorkDirectoryAndItsOwnTmpButNothingElseOfTheMachine() throws Exception {
        String name = "fleetjobs-sandbox-probe-" + UUID.randomUUID();
        // a directory anyone may write, as /var/tmp and /run/lock are, reachable by the job's uid
        Path open = Files.createDirectories(workDir.resolve("world-writable"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path varTmp = Path.of("/var/tmp");
        assumeTrue(Files.isDirectory(varTmp), "no /var/tmp on this machine");
        try {
            Outcome out = outcome(sh("{ echo a > " + open.resolve(name) + "; } 2>&1; echo open-rc=$?;"
                    + " { echo b > " + varTmp.resolve(name) + "; } 2>&1; echo var-tmp-rc=$?;"
                    + " echo c > note && cat note && echo c > $HOME/note2 && echo work-writable;"
                    + " echo d > /tmp/x && echo tmp-writable"));

            assertThat(out.stdoutTail()).contains("open-rc=").doesNotContain("open-rc=0").contains("var-tmp-rc=")
                    .doesNotContain("var-tmp-rc=0").contains("Read-only file system")
                    .contains("work-writable").contains("tmp-writable");
            assertThat(open.resolve(name)).doesNotExist();
            assertThat(varTmp.resolve(name)).doesNotExist();
        } finally {
            Files.deleteIfExists(varTmp.resolve(name));
        }
    }

    @Test
    void aJobsEnvironmentReachesOnlyTheJobNeverTheRootSideOfItsStart() throws Exception {
        // job A plants a `sh` and a library in its working directory, where root can read them
        RunningAttempt planter = sh("printf '#!/bin/sh\\nid -u >> \"$(dirname \"$0\")/ran-as\"\\nexec /bin/sh \"$@\"\\n' > sh;"
                + " chmod 755 sh; : > evil.so; echo planted; exec sleep 60");
        awaitOutput(planter, "planted");
        Path planted = planter.directory();

        // job B asks for a search path and a preload that name A's files: root must look at neither
        Outcome out = outcome(sh("echo uid=$(id -u) path=$PATH preload=$LD_PRELOAD",
                Map.of("PATH", planted + ":/usr/bin:/bin", "LD_PRELOAD", planted.resolve("evil.so").toString()),
                Requested.NOTHING));

        assertThat(out.exitCode()).as(out.stdoutTail() + out.stderrTail()).isZero();
        assertThat(out.stdoutTail()).contains("path=" + planted + ":/usr/bin:/bin")
                .contains("preload=" + planted.resolve("evil.so"));
        assertThat(planted.resolve("ran-as")).as("a program of job A ran at job B's start").doesNotExist();
    }

    @Test
    void aSandboxedJobStartsWithInterruptAndQuitAtTheirDefaults() throws Exception {
        Outcome out = outcome(sh("grep SigIgn /proc/self/status"));

        assertThat(ProcessRunnerTest.ignored(out.stdoutTail())).as(out.stdoutTail()).isZero();
    }

    /**
     * A tenant's secret in its job's environment: the root processes of the start live as long as the attempt, and
     * their arguments are anyone's to read on the machine ({@code /proc/<pid>/cmdline}, {@code ps}); it reached the
     * job as an argument of {@code env}, and every user of the machine could read it.
     */
    @Test
    void aJobsEnvironmentIsInNoArgumentOfAnyProcessOfTheMachine() throws Exception {
        String secret = "s3cret-" + UUID.randomUUID();
        RunningAttempt attempt = sh("echo \"token=$TOKEN\"; exec sleep 60", Map.of("TOKEN", secret), Requested.NOTHING);
        awaitOutput(attempt, "token=" + secret);

        List<Long> showing = new ArrayList<>();
        try (var pids = Files.list(Path.of("/proc"))) {
            for (Path p : pids.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    if (new String(Files.readAllBytes(p.resolve("cmdline")), UTF_8).contains(secret)) {
                        showing.add(Long.parseLong(p.getFileName().toString()));
                    }
                } catch (IOException e) {
                    // ended meanwhile
                }
            }
        }
        assertThat(showing).as("processes whose arguments show the secret").isEmpty();
        assertThat(attempt.directory().resolveSibling(ProcessRunner.ENVIRONMENT)).as("read, and gone").doesNotExist();
        attempt.terminate();
        outcome(attempt);
    }

    @Test
    void theAttemptsTogetherCannotForkPastTheMachinesBudgetThoughEachIsUnderItsOwn() throws Exception {
        Cgroups machine = cgroups.orElseThrow();
        Path parentPids = parentFile("pids.max");
        assumeTrue(parentPids != null, "no pids controller");
        machine.limitAllAttempts(40);
        try {
            assertThat(Files.readString(parentPids).strip()).isEqualTo("40");
            // 100 processes: under the attempt's own 512, over what all attempts together may have
            Outcome out = outcome(sh("i=0; while [ $i -lt 100 ]; do sleep 30 & i=$((i+1)); done 2>&1;"
                    + " echo started=$(ls /proc | grep -c '^[0-9]'); kill $(jobs -p) 2>/dev/null; exit 0"));
            assertThat(out.stdoutTail()).as(out.stdoutTail()).containsIgnoringCase("fork");
        } finally {
            Files.writeString(parentPids, "max");
        }
    }

    @Test
    void whenTheAttemptsTogetherFillTheMachineTheOneMostOverItsRequestIsKilledNotTheBiggest() throws Exception {
        Path parentLimit = parentFile("memory.limit_in_bytes");
        assumeTrue(parentLimit != null, "no cgroup v1 memory hierarchy");
        runner.holdAllAttemptsTo(110); // 174 MiB for all attempts together, with the 64 MiB headroom
        try {
            assertThat(Long.parseLong(Files.readString(parentLimit).strip())).isEqualTo(174L << 20);
            // asked for 120 MiB and uses about as much: the biggest, within what it asked for
            RunningAttempt honest = sh("exec /usr/bin/python3 -c \"import time; x = b'a' * (110 << 20); print('holding',"
                    + " flush=True); time.sleep(60)\"", Map.of(), new Requested(null, 120L));
            awaitOutput(honest, "holding");
            // asked for 20 MiB, uses 70 (within its own limit of 84): together over the machine's 174
            RunningAttempt greedy = sh("exec /usr/bin/python3 -c \"import time; x = b'a' * (60 << 20); print('took',"
                    + " flush=True); time.sleep(60)\"", Map.of(), new Requested(null, 20L));

            Outcome out = outcome(greedy);
            assertThat(out.exitCode()).as(out.stdoutTail() + out.stderrTail()).isEqualTo(137);
            assertThat(out.breach()).isNotNull();
            assertThat(out.breach().reason()).isEqualTo(FailureReason.OOM_KILLED);
            assertThat(honest.isAlive()).as("the job within its request lives").isTrue();
            honest.terminate();
            outcome(honest);
        } finally {
            Files.writeString(parentLimit, "-1");
        }
    }

    @Test
    void whenTheDiskFallsBelowItsReserveTheAttemptHoldingTheMostThereEndsAndOneHoldingNothingRuns() throws Exception {
        // a reserve no disk has free: the working directories' disk is always "full" here
        runner = new ProcessRunner(workDir.resolve("machine-full"), 1 << 20, 8192, GRACE, InstantSource.system(),
                ProcessRunner.DEFAULT_PASS_ENV, settings().withWorkDirCap(1L << 30, Duration.ofMillis(100))
                        .withDiskReserve(Long.MAX_VALUE / 4), Isolation.SANDBOX, cgroups.orElseThrow());
        RunningAttempt idle = sh("echo idle; exec sleep 60");
        awaitOutput(idle, "idle");
        RunningAttempt writer = sh("head -c 5000000 /dev/zero > fill && echo filled; exec sleep 60");

        Outcome out = outcome(writer);
        assertThat(out.breach()).isNotNull();
        assertThat(out.breach().reason()).isEqualTo(FailureReason.DISK_LIMIT_EXCEEDED);
        // the check every 100 ms may find the writer part of the way through its 5 MB (1 MiB on a loaded CI machine):
        // what matters is that the one holding the most is the one that ends
        assertThat(out.breach().detail()).contains("the machine's disk for working directories")
                .containsPattern("holds the most: \\d+ MiB");
        assertThat(idle.isAlive()).as("holding nothing, it would free nothing").isTrue();
    }

    @Test
    void aJobReadsItsOwnCgroupsLimitsButCannotListTheOtherAttemptsCgroups() throws Exception {
        Path memoryRoot = cgroups.orElseThrow().roots().stream().filter(r -> Files.exists(r.resolve("memory.stat")))
                .findFirst().orElse(null);
        assumeTrue(memoryRoot != null, "no memory hierarchy");
        RunningAttempt other = sh("echo other; exec sleep 60");
        awaitOutput(other, "other");

        Outcome out = outcome(sh("ls " + memoryRoot.resolve(PARENT) + " 2>&1; echo listed-rc=$?;"
                + " own=$(grep -E ':memory:|^0::' /proc/self/cgroup | head -1 | cut -d: -f3);"
                + " cat " + memoryRoot + "$own/memory.limit_in_bytes " + memoryRoot + "$own/memory.max 2>/dev/null",
                Map.of(), new Requested(null, 100L)));

        assertThat(out.stdoutTail()).contains("Permission denied").doesNotContain(other.key().fileName())
                .contains(Long.toString(164L << 20));
    }

    @Test
    void aJobCannotCreateAUserNamespaceNorRaiseItsLimitAndStillSeesEveryUidAsItIs() throws Exception {
        // the namespace's owner, as the kernel says (NS_GET_OWNER_UID): what it counts per user there, inotify
        // instances among them, is charged in the machine's namespace to that uid
        String owner = "perl -e 'open(my $f, \"<\", \"/proc/self/ns/user\") or die; my $b = \"\\0\" x 4;"
                + " ioctl($f, 0xb704, $b) or die; print unpack(\"L\", $b)'";
        String script = "unshare -Ur id -u 2>&1; echo unshare-rc=$?; echo 9 2>/dev/null"
                + " > /proc/sys/user/max_user_namespaces; echo limit=$(cat /proc/sys/user/max_user_namespaces);"
                + " echo uid=$(id -u) root-owns=$(stat -c %u /) ns-owner=$(" + owner + ");"
                + " echo map=$(cat /proc/self/uid_map); echo tmp=$(ls -A /tmp | wc -l)";

        Outcome denied = outcome(sh(script));

        assertThat(denied.stdoutTail()).contains("unshare-rc=1").contains("limit=0")
                .containsPattern("map=\\s*0 0 4294967295").contains("root-owns=0").contains("tmp=0");
        Matcher ids = Pattern.compile("uid=(\\d+) root-owns=0 ns-owner=(\\d+)").matcher(denied.stdoutTail());
        assertThat(ids.find()).as(denied.stdoutTail()).isTrue();
        assertThat(Integer.parseInt(ids.group(1))).isBetween(FIRST_UID, FIRST_UID + 99);
        assertThat(ids.group(2)).as("the job's uid owns its namespace, not root").isEqualTo(ids.group(1));

        runner = new ProcessRunner(workDir.resolve("allowing"), 1 << 20, 8192, GRACE, InstantSource.system(),
                ProcessRunner.DEFAULT_PASS_ENV, settings().withUserNamespaces(true), Isolation.SANDBOX,
                cgroups.orElseThrow());
        Outcome allowed = outcome(sh(script));

        assertThat(allowed.stdoutTail()).as("where the operator allows them").contains("unshare-rc=0");
    }

    @Test
    void aKeyOneJobPutsInItsSessionKeyringIsNotThereForAnotherThoughTheAgentHasASessionKeyring() throws Exception {
        assumeTrue(Sandbox.Hardening.candidates().contains(Sandbox.Hardening.OWN_SESSION_KEYRING),
                "no perl, or keyctl's number not known here");
        int addKey = Sandbox.SYSCALLS.orElseThrow().keyctl() == 250 ? 248 : 217; // add_key, amd64 or arm64
        String put = "my ($t, $d, $p) = (\"user\", \"tenant-a-secret\", \"s3cr3t-of-tenant-a\"); print syscall(" + addKey
                + ", $t, $d, $p, length($p), -3) > 0 ? \"added\\n\" : \"not added: $!\\n\";";
        String look = "my ($t, $d) = (\"user\", \"tenant-a-secret\"); print syscall(" + Sandbox.SYSCALLS.orElseThrow().keyctl()
                + ", 10, -3, $t, $d, 0) > 0 ? \"found\\n\" : \"not found\\n\";";
        Set<Sandbox.Hardening> without = Set.of(Sandbox.Hardening.OWN_USER_NAMESPACE);
        String shared = "fleetjobs-test-agent-" + UUID.randomUUID();

        // as under systemd or a container runtime: the agent has a session keyring, which its children inherit
        Process holder = joined(shared);
        try {
            assertThat(underSessionKeyring(shared, without, FIRST_UID + 97, put)).contains("added");
            assertThat(underSessionKeyring(shared, without, FIRST_UID + 96, look)).as("without the step: shared")
                    .contains("found").doesNotContain("not found");

            assertThat(underSessionKeyring(shared, Sandbox.Hardening.candidates(), FIRST_UID + 95, put))
                    .contains("added");
            // neither the key put in the agent's keyring above nor the one just put in the job's own
            assertThat(underSessionKeyring(shared, Sandbox.Hardening.candidates(), FIRST_UID + 94, look))
                    .contains("not found");
        } finally {
            holder.destroyForcibly();
        }
    }

    /**
     * A process that joined a new session keyring named so, which lasts while it lives (until destroyed), and which
     * its user (root) may search, so that the sandboxes started here join that one (as an agent's children inherit its).
     */
    private static Process joined(String keyring) throws Exception {
        int keyctl = Sandbox.SYSCALLS.orElseThrow().keyctl();
        Process holder = new ProcessBuilder("perl", "-e", "my $n = shift; my $id = syscall(" + keyctl + ", 1, $n);"
                + " $id > 0 or exit 99; syscall(" + keyctl + ", 5, $id, 0x3f3f0000) == 0 or exit 98; $| = 1;"
                + " print \"joined\\n\"; <STDIN>", "--", keyring).start();
        assertThat(new BufferedReader(new InputStreamReader(holder.getInputStream(), UTF_8)).readLine())
                .isEqualTo("joined");
        return holder;
    }

    /** What a perl job says, sandboxed as {@code steps} say, started by a process that joined the keyring named so. */
    private String underSessionKeyring(String keyring, Set<Sandbox.Hardening> steps, int uid, String perl)
            throws Exception {
        List<String> argv = new ArrayList<>(List.of("perl", "-e", "my $n = shift; syscall("
                + Sandbox.SYSCALLS.orElseThrow().keyctl() + ", 1, $n) > 0 or exit 99; exec { $ARGV[0] } @ARGV", "--", keyring));
        argv.addAll(new Sandbox(uid, 1 << 20, List.of(), null, List.of(), steps).argv(List.of("perl", "-e", perl)));
        Process sandbox = gateOpened(new ProcessBuilder(argv).directory(workDir.toFile()).redirectErrorStream(true));
        String said = new String(sandbox.getInputStream().readAllBytes(), UTF_8);
        assertThat(sandbox.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return said;
    }

    @Test
    void aJobCannotReadTheMachinesCredential() throws Exception {
        // as the agent keeps it: <work-dir>/credential, beside the machine's directory of attempts
        CredentialFile credential = CredentialFile.in(workDir);
        credential.write("the-machine-credential-itself");

        Outcome out = outcome(sh("cat " + credential.path() + " 2>&1; echo credential-rc=$?"));

        assertThat(out.stdoutTail()).contains("Permission denied").contains("credential-rc=1")
                .doesNotContain("the-machine-credential-itself");
    }

    @Test
    void aJobSeesItsOwnGpusDeviceNodesAndTheOthersReadAsDevNull() throws Exception {
        // stand-ins for /dev: regular files named as the driver's nodes (no real device node is made here)
        Path dev = Files.createDirectories(workDir.resolve("dev"));
        Files.setPosixFilePermissions(dev, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> nodes = List.of("nvidia0", "nvidia1", "nvidia2", "nvidia3", "nvidiactl");
        StringBuilder script = new StringBuilder();
        for (String name : nodes) {
            Path node = Files.writeString(dev.resolve(name), "content-of-" + name);
            Files.setPosixFilePermissions(node, PosixFilePermissions.fromString("rw-r--r--"));
            script.append("echo ").append(name).append("=[$(cat ").append(node).append(")];");
        }
        runner = new ProcessRunner(workDir.resolve("gpus"), 1 << 20, 8192, GRACE, InstantSource.system(),
                ProcessRunner.DEFAULT_PASS_ENV, settings().withDeviceDir(dev), Isolation.SANDBOX, cgroups.orElseThrow());

        Outcome out = outcome(sh(script.toString(), Map.of(), new Requested(null, null, List.of(1, 3))));

        assertThat(out.exitCode()).as(out.stdoutTail() + out.stderrTail()).isZero();
        assertThat(out.stdoutTail()).contains("nvidia0=[]").contains("nvidia1=[content-of-nvidia1]").contains("nvidia2=[]")
                .contains("nvidia3=[content-of-nvidia3]").contains("nvidiactl=[content-of-nvidiactl]");
        // only the attempt's mount namespace saw /dev/null there
        assertThat(Files.readString(dev.resolve("nvidia0"))).isEqualTo("content-of-nvidia0");
        Outcome none = outcome(sh(script.toString()));
        assertThat(none.stdoutTail()).contains("nvidia0=[]").contains("nvidia1=[]").contains("nvidia3=[]")
                .contains("nvidiactl=[content-of-nvidiactl]");
    }

    @Test
    void killMinusOneInsideTheSandboxLeavesTheAgentAndAnotherJobAlive() throws Exception {
        // the proof first, in the job's own output: not root, alone in a pid namespace of its own
        Outcome proof = outcome(sh("echo uid=$(id -u) procs=$(ls /proc | grep -c '^[0-9]') self=$$"));
        Matcher m = Pattern.compile("uid=(\\d+) procs=(\\d+) self=(\\d+)").matcher(proof.stdoutTail());
        if (!m.find() || Integer.parseInt(m.group(1)) == 0 || Integer.parseInt(m.group(2)) >= 20
                || Integer.parseInt(m.group(3)) >= 20) { // pids of a namespace of its own: the start's few steps first
            fail("refusing to let a job signal -1: it did not prove it runs unprivileged in a pid namespace of its own: "
                    + proof.stdoutTail());
        }

        RunningAttempt other = sh("echo other-started; exec sleep 60");
        awaitOutput(other, "other-started");
        // the job guards itself as well: it signals -1 only as a non-root uid that sees a handful of processes
        Outcome out = outcome(sh("sleep 60 & echo before uid=$(id -u) procs=$(ls /proc | grep -c '^[0-9]');"
                + " [ \"$(id -u)\" != 0 ] && [ \"$(ls /proc | grep -c '^[0-9]')\" -lt 20 ] && kill -9 -1;"
                + " echo after-kill rc=$?; wait; echo waited"));

        assertThat(out.stdoutTail()).contains("before uid=").contains("after-kill rc=0").contains("waited");
        assertThat(other.isAlive()).isTrue();
        assertThat(ProcessHandle.current().isAlive()).isTrue();
        other.terminate();
        assertThat(outcome(other).exitCode()).isEqualTo(143);
    }

    @Test
    void terminateGivesTheJobItsGraceAndItsExitStatusComesThrough() throws Exception {
        RunningAttempt attempt = sh("trap 'echo cleaning up; exit 3' TERM; echo ready; while :; do sleep 0.1; done");
        awaitOutput(attempt, "ready");

        attempt.terminate();
        Outcome out = outcome(attempt);

        assertThat(out.stdoutTail()).contains("cleaning up");
        assertThat(out.exitCode()).isEqualTo(3);
        assertThat(out.breach()).isNull();
    }

    @Test
    void aListedMountThatIsNoLongerThereDoesNotStopTheStartButTheRootMustGoReadOnly() throws Exception {
        Path gone = workDir.resolve("was-a-mount");
        Files.createDirectories(gone);
        Process sandbox = gateOpened(new ProcessBuilder(new Sandbox(FIRST_UID + 98, 1 << 20, List.of(), null,
                List.of(Path.of("/"), gone, workDir.resolve("never-there")), Sandbox.Hardening.candidates())
                .argv(List.of("sh", "-c", "touch /var/tmp/x 2>&1; echo started"))).directory(workDir.toFile())
                .redirectErrorStream(true));
        String said = new String(sandbox.getInputStream().readAllBytes(), UTF_8);
        assertThat(sandbox.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();

        assertThat(said).contains("Read-only file system").contains("started");
        assertThat(sandbox.exitValue()).isZero();
    }

    @Test
    void whenTheAgentDiesItsSandboxedJobDiesWithIt() throws Exception {
        agentDiesUnder("echo ready; exec sleep 300");
    }

    /**
     * A job that left the process group (setsid): the group kill of the lifeline's watcher inside the namespace does
     * not reach it, and pid 1 of its namespace, which the kernel shields from signals sent from inside, waits for it
     * (a job could also kill that watcher: its uid, its namespace). The lifeline is watched by root, outside.
     */
    @Test
    void whenTheAgentDiesASandboxedJobThatLeftItsProcessGroupDiesWithIt() throws Exception {
        agentDiesUnder("echo ready; exec setsid sleep 300");
    }

    private void agentDiesUnder(String job) throws Exception {
        Process sandbox = gateOpened(new ProcessBuilder(new Sandbox(FIRST_UID + 99, 1 << 20)
                .argv(List.of("sh", "-c", job))).directory(workDir.toFile()));
        var out = new BufferedReader(new InputStreamReader(sandbox.getInputStream(), UTF_8));
        assertThat(out.readLine()).isEqualTo("ready");
        List<Long> tree = sandbox.descendants().map(ProcessHandle::pid).toList();
        assertThat(tree).isNotEmpty();

        sandbox.getOutputStream().close(); // the agent's end of the lifeline, as when the agent is killed

        assertThat(sandbox.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        await().atMost(PATIENCE).until(() -> tree.stream().allMatch(pid -> ProcessGroups.stat(pid).map(
                ProcessGroups.Stat::gone).orElse(true)));
    }

    @Test
    void aJobThatAllocatesTwiceItsMemoryIsOomKilledWithAReasonAPersonCanActOn() throws Exception {
        RunningAttempt attempt = sh("echo allocating; exec /usr/bin/python3 -c \"x = b'a' * (200 << 20); print('survived')\"",
                Map.of(), new Requested(null, 100L));

        Outcome out = outcome(attempt);

        assertThat(out.stdoutTail()).contains("allocating").doesNotContain("survived");
        assertThat(out.exitCode()).isEqualTo(137);
        assertThat(out.breach()).isNotNull();
        assertThat(out.breach().reason()).isEqualTo(FailureReason.OOM_KILLED);
        assertThat(out.breach().detail()).isEqualTo("used more than its 100 MiB (limit 164 MiB with headroom)");
        assertThat(attempt.cgroup().orElseThrow().directories()).allSatisfy(dir -> assertThat(dir).doesNotExist());
    }

    @Test
    void withoutTheSandboxTheCgroupStillHoldsTheAttemptFromItsFirstInstruction() throws Exception {
        // root where unshare does not work: no namespaces, but the cgroup, entered before the job runs
        runner = new ProcessRunner(workDir.resolve("plain"), 1 << 20, 8192, GRACE, InstantSource.system(),
                ProcessRunner.DEFAULT_PASS_ENV, settings().withSandbox(false), Isolation.NONE, cgroups.orElseThrow());
        RunningAttempt attempt = runner.start(aKey(), List.of("sh", "-c", "cat /proc/self/cgroup; exec /usr/bin/python3"
                + " -c \"x = b'a' * (200 << 20); print('survived')\""), Map.of(), new Requested(null, 100L));

        Outcome out = outcome(attempt);

        assertThat(out.stdoutTail()).contains(PARENT + "/" + attempt.key().fileName()).doesNotContain("survived");
        assertThat(out.breach()).isNotNull();
        assertThat(out.breach().reason()).isEqualTo(FailureReason.OOM_KILLED);
    }

    @Test
    void aCpuBoundJobAskingHalfACpuGetsHalfACpuByItsCgroupsAccounting() throws Exception {
        RunningAttempt attempt = sh("echo spinning; while :; do :; done", Map.of(), new Requested(500L, null));
        awaitOutput(attempt, "spinning");
        Cgroups.AttemptCgroup cgroup = attempt.cgroup().orElseThrow();
        long cpu0 = cgroup.cpuUsageNanos().orElseThrow();
        long wall0 = System.nanoTime();

        // until the cgroup has been charged a second of CPU: with half a CPU, about two seconds of wall time
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(50))
                .until(() -> cgroup.cpuUsageNanos().orElseThrow() - cpu0 >= 1_000_000_000L);
        long cpu = cgroup.cpuUsageNanos().orElseThrow() - cpu0;
        long wall = System.nanoTime() - wall0;

        double share = (double) cpu / wall;
        assertThat(share).as("CPU used / wall time").isBetween(0.3, 0.6);
        attempt.terminate();
        outcome(attempt);
    }

    @Test
    void aProcessThatLeavesTheGroupStillEndsWithTheAttemptAndTheCgroupGoes() throws Exception {
        RunningAttempt attempt = sh("setsid sh -c 'echo escaped; touch up; exec sleep 300' &"
                + " while [ ! -e go ]; do sleep 0.05; done; echo leader-done");
        await().atMost(PATIENCE).until(() -> Files.exists(attempt.directory().resolve("up")));
        Cgroups.AttemptCgroup cgroup = attempt.cgroup().orElseThrow();
        List<Long> pids = cgroup.pids();
        assertThat(pids).hasSizeGreaterThanOrEqualTo(3); // unshare, the tied shell, the escaped one, ...
        Files.writeString(attempt.directory().resolve("go"), "");

        Outcome out = outcome(attempt);

        assertThat(out.stdoutTail()).contains("escaped").contains("leader-done");
        assertThat(pids).allSatisfy(pid -> assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .flatMap(p -> ProcessGroups.stat(pid)).filter(stat -> !stat.gone())).isEmpty());
        assertThat(cgroup.directories()).allSatisfy(dir -> assertThat(dir).doesNotExist());
    }

    @Test
    void aCommandTheJobsUidMayNotRunIsTheJobsFailureAndSoAreAMissingOneAndOneTooLongForExec() throws Exception {
        Path dir = Files.createDirectories(workDir.resolve("bin"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path rootsOnly = Files.writeString(dir.resolve("roots-only"), "#!/bin/sh\necho ran\n");
        Files.setPosixFilePermissions(rootsOnly, PosixFilePermissions.fromString("rwx------"));

        assertThat(startFailure(List.of(rootsOnly.toString()))).isInstanceOfSatisfying(CommandNotStartableException.class,
                e -> assertThat(e.exitCode()).isEqualTo(126));
        assertThat(startFailure(List.of("no-such-command-anywhere"))).isInstanceOfSatisfying(
                CommandNotStartableException.class, e -> {
                    assertThat(e.exitCode()).isEqualTo(127);
                    assertThat(e.getMessage()).contains("command not found: no-such-command-anywhere");
                });
        assertThat(startFailure(List.of("echo", "é".repeat(70_000)))).as("140,000 bytes: too long for exec")
                .isInstanceOfSatisfying(CommandNotStartableException.class, e -> assertThat(e.exitCode()).isEqualTo(126));
        assertThat(runner.running()).isEmpty();
    }

    @Test
    void aWorkDirectoryPastItsCapEndsTheAttempt() throws Exception {
        runner = new ProcessRunner(workDir.resolve("capped"), 1 << 20, 8192, GRACE, InstantSource.system(),
                ProcessRunner.DEFAULT_PASS_ENV, settings().withWorkDirCap(1 << 20, Duration.ofMillis(100)),
                Isolation.SANDBOX, cgroups.orElseThrow());

        Outcome out = outcome(sh("head -c 5M /dev/zero > big; echo written; exec sleep 60"));

        assertThat(out.breach()).isNotNull();
        assertThat(out.breach().reason()).isEqualTo(FailureReason.DISK_LIMIT_EXCEEDED);
        assertThat(out.breach().detail()).contains("more than the cap of 1 MiB");
    }

    @Test
    void whatAJobHidesPastTheLongestPathIsMeasuredAndMeetsTheCapAndItsDirectoryStillGoes() throws Exception {
        runner = new ProcessRunner(workDir.resolve("capped-deep"), 1 << 20, 8192, GRACE, InstantSource.system(),
                ProcessRunner.DEFAULT_PASS_ENV, settings().withWorkDirCap(4L << 20, Duration.ofMillis(100))
                        .withRetention(Duration.ZERO), Isolation.SANDBOX, cgroups.orElseThrow());

        // 5 MiB past PATH_MAX, where no absolute path reaches: the walk goes there by descriptors
        Outcome out = outcome(sh(DiskUsageTest.HIDE_PAST_PATH_MAX + " exec sleep 60"));

        assertThat(out.breach()).isNotNull();
        assertThat(out.breach().reason()).isEqualTo(FailureReason.DISK_LIMIT_EXCEEDED);
        assertThat(out.breach().detail()).contains("more than the cap of 4 MiB");
        await().atMost(PATIENCE).until(() -> runner.removeExpired(Instant.now().plusSeconds(1)) == 1);
        try (var left = Files.list(workDir.resolve("capped-deep").resolve("attempts"))) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void emptyFilesCountAsTheInodesAndBlocksTheyTakeSoMillionsOfThemMeetTheCap() throws Exception {
        runner = new ProcessRunner(workDir.resolve("capped-files"), 1 << 20, 8192, GRACE, InstantSource.system(),
                ProcessRunner.DEFAULT_PASS_ENV, settings().withWorkDirCap(1 << 20, Duration.ofMillis(100)),
                Isolation.SANDBOX, cgroups.orElseThrow());

        // 400 files of no bytes: 1.6 MiB as the disk holds them, past the cap of 1 MiB (a busy machine's measure may
        // come before the last: the cap is met all the same)
        Outcome out = outcome(sh("mkdir many && cd many && i=0; while [ $i -lt 400 ]; do : > f$i; i=$((i+1)); done;"
                + " echo made; exec sleep 60"));

        assertThat(out.breach()).isNotNull();
        assertThat(out.breach().reason()).isEqualTo(FailureReason.DISK_LIMIT_EXCEEDED);
        assertThat(out.breach().detail()).contains("more than the cap of 1 MiB");
    }

    @Test
    void whileTheDiskIsBelowItsReserveAnEndedAttemptsDirectoryGoesBeforeItsRetentionAndALiveOneStays()
            throws Exception {
        // a reserve larger than any disk: the disk is always below it
        runner = new ProcessRunner(workDir.resolve("short-of-disk"), 1 << 20, 8192, GRACE, InstantSource.system(),
                ProcessRunner.DEFAULT_PASS_ENV, settings().withDiskReserve(Long.MAX_VALUE / 4), Isolation.SANDBOX,
                cgroups.orElseThrow());
        RunningAttempt done = sh("head -c 2M /dev/zero > left-behind");
        outcome(done);
        RunningAttempt live = sh("echo live; exec sleep 60");
        awaitOutput(live, "live");

        assertThat(runner.removeExpired(Instant.now())).isEqualTo(1);
        assertThat(done.stdoutFile().getParent()).doesNotExist();
        assertThat(live.directory()).exists();
    }

    @Test
    void anEndedAttemptsDirectoryGoesAfterTheRetention() throws Exception {
        RunningAttempt done = sh("echo hi > file");
        outcome(done);
        RunningAttempt live = sh("echo live; exec sleep 60");
        awaitOutput(live, "live");
        Path doneDir = done.stdoutFile().getParent();

        assertThat(runner.removeExpired(Instant.now())).isZero();
        assertThat(doneDir).exists();
        assertThat(runner.removeExpired(Instant.now().plus(Duration.ofHours(2)))).isEqualTo(1);
        assertThat(doneDir).doesNotExist();
        assertThat(live.directory()).exists();
    }

    @Test
    void aRestartedRunnerKillsWhatThePreviousOneLeftEvenOutsideTheGroup() throws Exception {
        RunningAttempt left = sh("setsid sh -c 'echo escaped; touch up; exec sleep 300' & echo started; exec sleep 300");
        await().atMost(PATIENCE).until(() -> Files.exists(left.directory().resolve("up")));
        Cgroups.AttemptCgroup cgroup = left.cgroup().orElseThrow();
        assertThat(cgroup.pids()).isNotEmpty();

        ProcessRunner restarted = new ProcessRunner(workDir.resolve("machine"), 1 << 20, 8192, GRACE,
                InstantSource.system(), ProcessRunner.DEFAULT_PASS_ENV, settings(), Isolation.SANDBOX,
                cgroups.orElseThrow());
        // the new runner does not know the old one's attempts: as after an agent restart
        assertThat(restarted.killLeftovers()).contains(left.key());

        assertThat(outcome(left).exitCode()).isNotZero();
        await().atMost(PATIENCE).until(() -> cgroup.directories().stream().noneMatch(Files::exists));
    }

    private Exception startFailure(List<String> command) {
        try {
            runner.start(aKey(), command, Map.of(), Requested.NOTHING);
            return null;
        } catch (StartFailedException e) {
            return e;
        }
    }

    private static int procs(String output) {
        Matcher m = Pattern.compile("procs=(\\d+)").matcher(output);
        return m.find() ? Integer.parseInt(m.group(1)) : Integer.MAX_VALUE;
    }

    static String read(Path file) throws Exception {
        return Files.readString(file, UTF_8);
    }
}
