package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.UnplacedKind;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A job that requires a sandbox goes only to machines that sandbox their jobs, and says why it waits. */
class IsolationFilterTest {
    private static MachineView sandboxed(MachineView m) {
        return new MachineView(m.machine(), m.heartbeatAge(), true);
    }

    private static PendingJob requiringIsolation(PendingJob j) {
        return new PendingJob(j.jobId(), j.tenantId(), j.priority(), j.cpuMillis(), j.memoryMb(), j.gpuCount(), j.gpuTypes(),
                j.region(), j.labels(), j.strategy(), j.order(), true);
    }

    @Test
    void aJobThatRequiresASandboxGoesOnlyWhereThereIsOne() {
        // the unsandboxed machine is the fuller one, which bin-packing alone would choose
        Snapshot snapshot = Snapshots.of(aMachine("plain").cores(16).allocated(8_000, 16_384, 0).build(),
                sandboxed(aMachine("sandboxed").cores(16).build()));
        PendingJob strict = requiringIsolation(aJob().cores(1).memoryMb(512).build());
        PendingJob relaxed = aJob().cores(1).memoryMb(512).build();

        assertThat(Snapshots.machinesOf(Snapshots.plan(snapshot, strict))).containsEntry(strict.jobId(), "sandboxed");
        assertThat(Snapshots.machinesOf(Snapshots.plan(snapshot, relaxed))).containsEntry(relaxed.jobId(), "plain");
    }

    @Test
    void aNetworkOfItsOwnNeedsASandboxAsAskingForOneDoes() {
        var ownNetwork = new JobSpec("n", null, null, Resources.of(1, 256), null,
                new Execution(List.of("true"), Map.of(), null, Execution.NO_NETWORK),
                null, null);
        var host = new JobSpec("n", null, null, Resources.of(1, 256), null,
                new Execution(List.of("true"), Map.of(), null, "host"), null, null);
        assertThat(PendingJob.of(UUID.randomUUID(), UUID.randomUUID(), ownNetwork, 0).requireIsolation())
                .isTrue();
        assertThat(PendingJob.of(UUID.randomUUID(), UUID.randomUUID(), host, 0).requireIsolation())
                .isFalse();
    }

    @Test
    void withoutASandboxAnywhereTheJobCanNeverFitAndSaysWhy() {
        Snapshot snapshot = Snapshots.of(aMachine("a").build(), aMachine("b").build());
        PendingJob strict = requiringIsolation(aJob().cores(1).memoryMb(512).build());

        Unplaced unplaced = Snapshots.plan(snapshot, strict).unplaced().get(strict.jobId());
        assertThat(unplaced.kind()).isEqualTo(UnplacedKind.CAN_NEVER_FIT);
        assertThat(unplaced.reason()).contains("2 do not sandbox their jobs (isolation none)");
    }
}
