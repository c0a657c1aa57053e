package io.fleetjobs.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sandbox's command line, as a pure function. */
class SandboxTest {
    @Test
    void theJobsArgvComesLastBehindTheGateTheNamespacesAndTheUid() {
        List<String> argv = new Sandbox(61007, 256L << 20).argv(List.of("python3", "-c", "print('hi')"));

        assertThat(argv.subList(0, 3)).containsExactly("setsid", "sh", "-c");
        assertThat(argv.get(3)).startsWith(Sandbox.GATE)
                .contains("unshare --pid --fork --kill-child --mount --ipc --mount-proc");
        assertThat(argv.get(5)).contains("mount -t tmpfs -o size=268435456,mode=1777,nosuid,nodev fleetjobs-tmp /tmp")
                .contains("setpriv --reuid=61007 --regid=61007 --clear-groups --inh-caps=-all --bounding-set=-all"
                        + " --no-new-privs");
        assertThat(argv.get(6)).isEqualTo(ProcessRunner.TIED_TO_AGENT);
        assertThat(argv.subList(7, argv.size())).containsExactly("python3", "-c", "print('hi')");
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
    void withoutTheDeviceDirectoryOrGpuNodesInItNothingIsMasked(@TempDir Path dir) throws Exception {
        assertThat(Sandbox.otherGpus(dir.resolve("no-such-dir"), List.of())).isEmpty();
        Files.writeString(dir.resolve("nvidiactl"), "");
        assertThat(Sandbox.otherGpus(dir, List.of())).isEmpty();
        Files.writeString(dir.resolve("nvidia0"), "");
        Files.writeString(dir.resolve("nvidia1"), "");
        assertThat(Sandbox.otherGpus(dir, List.of(1))).containsExactly(dir.resolve("nvidia0"));
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
