package io.fleetjobs.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

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
