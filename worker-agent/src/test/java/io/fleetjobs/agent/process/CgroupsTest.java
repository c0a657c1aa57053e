package io.fleetjobs.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The pure side of {@link Cgroups}: which hierarchy, which values. */
class CgroupsTest {
    static final List<String> V1_MACHINE = List.of(
            "25 30 0:23 / /sys/fs/cgroup rw,relatime shared:9 - tmpfs tmpfs rw,mode=755",
            "26 25 0:24 / /sys/fs/cgroup/cpu rw,relatime shared:10 - cgroup cgroup rw,cpu",
            "27 25 0:25 / /sys/fs/cgroup/cpuacct rw,relatime shared:11 - cgroup cgroup rw,cpuacct",
            "28 25 0:26 / /sys/fs/cgroup/memory rw,relatime shared:12 - cgroup cgroup rw,memory",
            "29 25 0:27 / /sys/fs/cgroup/pids rw,relatime shared:13 - cgroup cgroup rw,pids",
            "30 25 0:28 / /sys/fs/cgroup/unified rw,relatime shared:14 - cgroup2 cgroup2 rw");

    @ParameterizedTest
    @CsvSource({
            // cpuMillis, memoryMb, memory limit MiB, quota us per 100 ms
            "500,  512,  576,  50000",   // 10% of 512 is less than 64: the floor
            "2000, 4096, 4505, 200000",  // 10% of 4096
            "1,    1,    65,   1000",    // the kernel's smallest quota
            "250,  100,  164,  25000"})
    void limitsFollowTheRequestWithHeadroom(long cpuMillis, long memoryMb, long limitMb, long quota) {
        Cgroups.Limits limits = Cgroups.Limits.of(cpuMillis, memoryMb, 64, 10, 4096);
        assertThat(limits.memoryBytes()).isEqualTo(limitMb << 20);
        assertThat(limits.cpuQuotaMicros()).isEqualTo(quota);
        assertThat(limits.cpuMax()).isEqualTo(quota + " 100000");
        assertThat(limits.pidsMax()).isEqualTo(4096);
    }

    @Test
    void theAttemptsTogetherGetTheMachinesPidsButAReserveForTheAgentAndTheRest() {
        assertThat(Cgroups.pidsBudget(32_768, 192_736)).isEqualTo(32_768 - 4_096);
        assertThat(Cgroups.pidsBudget(4_194_304, 1_000_000)).isEqualTo(1_000_000 - 125_000);
        assertThat(Cgroups.pidsBudget(4_096, 100_000)).isEqualTo(1_024);
    }

    @Test
    void anAttemptsOomScoreIsAThousandLessItsRequestInThousandthsOfWhatAllAttemptsMayUse() {
        assertThat(Cgroups.oomScoreAdj(100L << 20, 1000L << 20)).isEqualTo(900);
        assertThat(Cgroups.oomScoreAdj(2000L << 20, 1000L << 20)).isZero();
        assertThat(Cgroups.oomScoreAdj(0, 1000L << 20)).isZero();
        assertThat(Cgroups.oomScoreAdj(100L << 20, 0)).isZero();
    }

    @Test
    void theMachinesKernelFilesAreReadWhole() throws Exception {
        Path pidMax = Path.of("/proc/sys/kernel/pid_max");
        Assumptions.assumeTrue(Files.exists(pidMax), "no procfs");
        long pids = Long.parseLong(new String(Files.newInputStream(pidMax).readAllBytes()).strip());
        long threads = Long.parseLong(new String(Files.newInputStream(
                Path.of("/proc/sys/kernel/threads-max")).readAllBytes()).strip());
        assertThat(Cgroups.machinePidsBudget()).hasValue(Cgroups.pidsBudget(pids, threads));
        assertThat(ProcessGroups.bootId()).get().asString().hasSize(36); // a UUID, not its first character
    }

    @Test
    void whatWasNotAskedForIsNotLimited() {
        Cgroups.Limits limits = Cgroups.Limits.of(null, null, 64, 10, null);
        assertThat(limits.memoryBytes()).isNull();
        assertThat(limits.cpuQuotaMicros()).isNull();
        assertThat(limits.cpuMax()).isEqualTo("max 100000");
    }

    @Test
    void v1IsChosenWhereTheUnifiedHierarchyHasNoMemoryController() {
        var cgroups = Cgroups.detect(V1_MACHINE, "fleetjobs-agent").orElseThrow();
        assertThat(cgroups.version()).isEqualTo("v1");
        assertThat(cgroups.roots()).containsExactlyInAnyOrder(Path.of("/sys/fs/cgroup/cpu"), Path.of("/sys/fs/cgroup/cpuacct"),
                Path.of("/sys/fs/cgroup/memory"), Path.of("/sys/fs/cgroup/pids"));
    }

    @Test
    void v2IsChosenWhereCgroup2HasTheMemoryController(@TempDir Path root) throws Exception {
        Files.writeString(root.resolve("cgroup.controllers"), "cpuset cpu io memory pids\n");
        var cgroups = Cgroups.detect(List.of(
                "30 25 0:28 / " + root + " rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate"),
                "fleetjobs/m-1").orElseThrow();
        assertThat(cgroups.version()).isEqualTo("v2");
        assertThat(cgroups.roots()).containsExactly(root);
    }

    @Test
    void noneWithoutAMemoryHierarchyOrOnAReadOnlyMount() {
        assertThat(Cgroups.detect(List.of("26 25 0:24 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu"), "p")).isEmpty();
        assertThat(Cgroups.detect(List.of("28 25 0:26 / /sys/fs/cgroup/memory ro,relatime - cgroup cgroup ro,memory"),
                "p")).isEmpty();
        assertThat(Cgroups.detect(List.of("garbage"), "p")).isEmpty();
    }

    @Test
    void countersAreReadFromFlatKeyedFiles() {
        assertThat(Cgroups.keyed("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n", "oom_kill")).hasValue(2);
        assertThat(Cgroups.keyed("usage_usec 1500\nuser_usec 1000\n", "usage_usec")).hasValue(1500);
        assertThat(Cgroups.keyed("low 0\n", "oom_kill")).isEmpty();
    }
}
