package io.fleetjobs.agent.process;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sandbox's command line, as a pure function. */
class SandboxTest {
    @Test
    void theJobsArgvComesLastBehindTheGateTheNamespacesAndTheUid() {
        List<String> argv = new Sandbox(61007, 256L << 20).argv(List.of("python3", "-c", "print('hi')"),
                Map.of("PATH", "/opt/x:/usr/bin", "LD_PRELOAD", "/opt/planted.so", "A", "b=c d"));

        assertThat(argv.subList(0, 3)).containsExactly("setsid", "sh", "-c");
        assertThat(argv.get(3)).startsWith(Sandbox.GATE)
                .contains("unshare --pid --fork --kill-child --mount --ipc --mount-proc");
        assertThat(argv.get(5)).contains("mount -t tmpfs -o size=268435456,mode=1777,nosuid,nodev fleetjobs-tmp /tmp")
                .contains("setpriv --reuid=61007 --regid=61007 --clear-groups --inh-caps=-all --bounding-set=-all"
                        + " --no-new-privs -- env -i -- \"$@\"");
        // the job's environment only as env's arguments after the uid is dropped, sorted, then the tied shell
        assertThat(argv.subList(6, argv.size())).containsExactly("A=b=c d", "LD_PRELOAD=/opt/planted.so",
                "PATH=/opt/x:/usr/bin", "/bin/sh", "-c", ProcessRunner.TIED_TO_AGENT, "fleetjobs-attempt", "python3",
                "-c", "print('hi')");
        assertThat(Sandbox.ROOT_ENVIRONMENT).containsOnlyKeys("PATH");
    }

    @Test
    void withAnEnvironmentFileNoVariableIsAnArgumentAndTheFileIsReadAsTheJobsUid() {
        Map<String, String> env = Map.of("TOKEN", "s3cret", "A", "b=c\nd", "EMPTY", "");
        List<String> argv = new Sandbox(61007, 256L << 20).argv(List.of("python3"), env, Path.of("/attempts/x/environment"));

        assertThat(argv).noneMatch(a -> a.contains("s3cret") || a.contains("TOKEN="));
        assertThat(argv.get(5)).startsWith("command exec 4<\"$1\" && rm -f -- \"$1\" && shift || exit 125\n")
                .contains("--no-new-privs -- /usr/bin/perl -e ").doesNotContain("env -i");
        assertThat(argv.subList(6, argv.size())).containsExactly("/attempts/x/environment", "/bin/sh", "-c",
                ProcessRunner.TIED_TO_AGENT, "fleetjobs-attempt", "python3");
        assertThat(new String(Sandbox.environmentFile(env), UTF_8)).isEqualTo("A=b=c\nd\0EMPTY=\0TOKEN=s3cret\0");
        assertThatThrownBy(() -> Sandbox.environmentFile(Map.of("A=B", "c"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Sandbox(61007, 256L << 20).argv(List.of("true"), Map.of("A", "\0"), Path.of("/e")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theUidDropsInAUserNamespaceOfTheAttemptsOwnThatItsUidOwnsAndThatMayHoldNoneUnlessJobsMayCreateThem() {
        Assumptions.assumeTrue(Sandbox.SYSCALLS.isPresent(), "the system calls' numbers not known");
        Sandbox.Syscalls calls = Sandbox.SYSCALLS.orElseThrow();
        String inner = new Sandbox(61007, 1 << 20, List.of(), null, List.of(),
                Set.of(Sandbox.Hardening.OWN_USER_NAMESPACE)).argv(List.of("true")).get(5);

        int fifo = inner.indexOf("mkfifo -m 600 /tmp/.fleetjobs-mapped && chown 61007 /tmp/.fleetjobs-mapped");
        int maps = inner.indexOf("echo '0 0 4294967295' > /proc/1/uid_map");
        int owner = inner.indexOf("$> = $u; $> == $u or exit 125;");
        int unshare = inner.indexOf("syscall(" + calls.unshare() + ", 0x10000000) == 0 or exit 125;");
        int limit = inner.indexOf("\"/proc/sys/user/max_user_namespaces\") or exit 125; print $m \"0\\n\"");
        int root = inner.indexOf("$> = 0;");
        int drop = inner.indexOf("-- 61007 /tmp/.fleetjobs-mapped setpriv --reuid=61007");
        assertThat(inner.indexOf("fleetjobs-tmp /tmp")).as("the FIFO on the attempt's own /tmp").isLessThan(fifo);
        assertThat(List.of(fifo, maps, owner, unshare, limit, root, drop)).doesNotContain(-1).isSorted();
        assertThat(inner).doesNotContain("syscall(" + calls.keyctl());

        String allowing = new Sandbox(61007, 1 << 20, List.of(), null, List.of(), Set.of())
                .argv(List.of("true")).get(5);
        assertThat(allowing).doesNotContain("0x10000000").doesNotContain("max_user_namespaces")
                .doesNotContain("perl").contains("exec setpriv --reuid=61007");
    }

    @Test
    void theAttemptJoinsASessionKeyringOfItsOwnAsRootJustBeforeTheUidDrops() {
        Assumptions.assumeTrue(Sandbox.SYSCALLS.isPresent(), "keyctl's number not known here");
        String inner = new Sandbox(61007, 1 << 20, List.of(), null, List.of(),
                Set.of(Sandbox.Hardening.OWN_SESSION_KEYRING)).argv(List.of("true")).get(5);

        assertThat(inner).contains("exec perl -e 'syscall(" + Sandbox.SYSCALLS.orElseThrow().keyctl()
                + ", 1, 0) > 0 or exit 125; $> = 0; $> == 0 or exit 125; exec { $ARGV[0] } @ARGV or exit 127;'"
                + " -- setpriv --reuid=61007").doesNotContain("mkfifo");
    }

    @Test
    void aNameThatEnvWouldMisreadIsRefused() {
        Sandbox sandbox = new Sandbox(61007, 1 << 20);
        for (String name : List.of("", "A=B", "A\0B")) {
            assertThatThrownBy(() -> sandbox.argv(List.of("true"), Map.of(name, "x")))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> sandbox.argv(List.of("true"), Map.of("A", "x\0y")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyGpuNodeButTheAttemptsOwnIsCoveredAndTheControlNodesStay() {
        Path dev = Path.of("/dev");
        List<String> names = List.of("nvidia3", "nvidiactl", "nvidia0", "nvidia-uvm", "nvidia-uvm-tools", "nvidia1",
                "nvidia-modeset", "nvidia-caps", "nvidia10", "nvidia2", "null", "nvme0n1");
        List<Path> others = Sandbox.otherGpus(dev, names, List.of(1, 2));
        assertThat(others).containsExactly(dev.resolve("nvidia0"), dev.resolve("nvidia3"), dev.resolve("nvidia10"));
        assertThat(Sandbox.otherGpus(dev, names, List.of())).containsExactly(dev.resolve("nvidia0"), dev.resolve("nvidia1"),
                dev.resolve("nvidia2"), dev.resolve("nvidia3"), dev.resolve("nvidia10"));
        assertThat(Sandbox.otherGpus(dev, names, List.of(0, 1, 2, 3, 10))).isEmpty();
        assertThat(Sandbox.otherGpus(dev, List.of("null", "zero", "nvidiactl"), List.of())).isEmpty();

        String inner = new Sandbox(61007, 1 << 20, others).argv(List.of("true")).get(5);
        assertThat(inner).contains("mount --bind /dev/null '/dev/nvidia0' || exit 125")
                .contains("mount --bind /dev/null '/dev/nvidia3' || exit 125")
                .contains("mount --bind /dev/null '/dev/nvidia10' || exit 125")
                .doesNotContain("nvidia1'").doesNotContain("nvidia2'").doesNotContain("nvidiactl");
        assertThat(inner.indexOf("/dev/nvidia0")).as("before the uid is dropped").isLessThan(inner.indexOf("setpriv"));
        assertThat(new Sandbox(61007, 1 << 20).argv(List.of("true")).get(5)).doesNotContain("mount --bind");
    }

    @Test
    void aNetworkOfItsOwnIsANetworkNamespaceWhoseLoopbackComesUpBeforeTheJob() {
        List<String> own = new Sandbox(61007, 1 << 20, List.of(), null, List.of(), Set.of(), true)
                .argv(List.of("true"));
        assertThat(own.get(3)).as("the outer script's unshare").contains(" --net ");
        assertThat(own.get(5)).startsWith(Sandbox.LOOPBACK_UP + "\n");
        assertThat(own.get(5).indexOf("ip link set lo up")).isLessThan(own.get(5).indexOf("setpriv"));

        List<String> host = new Sandbox(61007, 1 << 20).argv(List.of("true"));
        assertThat(host.get(3)).doesNotContain("--net");
        assertThat(host.get(5)).doesNotContain("ip link");
    }

    @Test
    void withoutTheDeviceDirectoryOrGpuNodesInItNothingIsMasked(@TempDir Path dir) throws Exception {
        assertThat(Sandbox.otherGpus(dir.resolve("no-such-dir"), List.of())).isEmpty();
        Files.writeString(dir.resolve("nvidiactl"), "");
        assertThat(Sandbox.otherGpus(dir, List.of())).isEmpty();
        Files.writeString(dir.resolve("nvidia0"), "");
        Files.writeString(dir.resolve("nvidia1"), "");
        assertThat(Sandbox.otherGpus(dir, List.of(1))).containsExactly(dir.resolve("nvidia0"));
    }

    @Test
    void everyReadWriteMountButTheKernelsViewsAndTheDevicesIsMadeReadOnlyAndTheHiddenOnesAreLeft() {
        List<String> mountinfo = List.of(
                "23 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw",
                "24 23 0:5 / /dev rw,nosuid - devtmpfs devtmpfs rw,mode=755",
                "25 24 0:22 / /dev/pts rw,nosuid,noexec - devpts devpts rw",
                "26 24 0:23 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw",
                "27 23 0:21 / /proc rw,nosuid - proc proc rw",
                "28 23 0:20 / /sys rw,nosuid - sysfs sysfs rw",
                "29 28 0:24 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory",
                "30 23 0:25 / /run rw,nosuid - tmpfs tmpfs rw",
                "31 23 254:1 / /data/with\\040space rw - ext4 /dev/vdb rw",
                "32 23 254:2 / /opt/models ro,relatime - ext4 /dev/vdc ro",
                "33 23 0:26 / /mnt/old rw - tmpfs tmpfs rw",
                "34 23 0:27 / /mnt rw - tmpfs tmpfs rw",
                "35 34 0:28 / /mnt/new rw - tmpfs tmpfs rw",
                "short line");

        assertThat(Sandbox.writableMounts(mountinfo)).containsExactly(Path.of("/"), Path.of("/dev/shm"), Path.of("/run"),
                Path.of("/data/with space"), Path.of("/mnt"), Path.of("/mnt/new"));
    }

    @Test
    void theWorkingDirectoryStaysWritableTheRestGoesReadOnlyAndTheShellMovesIntoItBeforeTmpIsCovered() {
        Path work = Path.of("/var/lib/fleetjobs/attempts/j-1/work");
        String inner = new Sandbox(61007, 1 << 20, List.of(), work, List.of(Path.of("/"), Path.of("/data/it's")),
                Sandbox.Hardening.candidates())
                .argv(List.of("true")).get(5);

        int bind = inner.indexOf("mount --bind '" + work + "' '" + work + "' || exit 125");
        int root = inner.indexOf("mount -o remount,bind,ro '/' || exit 125");
        int data = inner.indexOf("mount -o remount,bind,ro '/data/it'\\''s' 2>/dev/null || ! mountpoint -q '/data/it'\\''s'"
                + " || exit 125");
        int cd = inner.indexOf("cd '" + work + "' || exit 125");
        int tmp = inner.indexOf("fleetjobs-tmp /tmp");
        assertThat(List.of(bind, root, data, cd, tmp)).doesNotContain(-1).isSorted();
        assertThat(inner.indexOf("setpriv")).isGreaterThan(tmp);
        assertThat(new Sandbox(61007, 1 << 20).argv(List.of("true")).get(5)).doesNotContain("remount")
                .doesNotContain("cd ");
    }

    @Test
    void rootIsNeverAnAttemptsUid() {
        assertThatThrownBy(() -> new Sandbox(0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withACgroupButNoSandboxTheGateComesFirst() {
        List<String> argv = Sandbox.gatedArgv(List.of("true"));
        assertThat(argv.get(3)).isEqualTo(Sandbox.GATE + "\n" + ProcessRunner.TIED_TO_AGENT);
        assertThat(argv.getLast()).isEqualTo("true");
    }
}
