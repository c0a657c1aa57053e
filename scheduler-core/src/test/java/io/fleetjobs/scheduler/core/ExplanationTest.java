package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.model.UnplacedKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reasons a person reads for a job left queued: exact words, per-filter counts, and the kind. */
class ExplanationTest {

    @Test
    void countsEachMachineUnderTheFirstFilterThatRejectsIt() {
        List<MachineView> machines = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            machines.add(aMachine("a100-" + i).withGpus(8, "A100").build());
        }
        for (int i = 0; i < 3; i++) {
            machines.add(aMachine("h100-" + i).withGpus(8, "H100").allocated(0, 0, 5 + i).build());
        }
        PendingJob job = aJob().gpus(4, "H100").build();

        Unplaced unplaced = Snapshots.plan(Snapshots.of(machines), job).unplaced().get(job.jobId());

        assertThat(unplaced.reason()).isEqualTo("0 of 12 machines fit: 9 lack GPU type H100, 3 have fewer than 4 free GPUs");
        assertThat(unplaced.kind()).isEqualTo(UnplacedKind.DOES_NOT_FIT_NOW);
        assertThat(unplaced.rejectedBy()).containsExactly(Map.entry("gpu-type", 9), Map.entry("free-gpu", 3));
    }

    @Test
    void aMachineOutsideTheRegionIsCountedThereWhateverElseItLacks() {
        List<MachineView> machines = new ArrayList<>();
        for (int i = 0; i < 28; i++) {
            // elsewhere, and also without H100s and busy: counted once, as elsewhere
            machines.add(aMachine("far-" + i).region("eu-west-1").withGpus(8, "A100").allocated(16_000, 0, 8).build());
        }
        for (int i = 0; i < 9; i++) {
            machines.add(aMachine("cpu-" + i).region("us-east-1").build());
        }
        for (int i = 0; i < 3; i++) {
            machines.add(aMachine("h100-" + i).region("us-east-1").withGpus(8, "H100").allocated(0, 0, 7).build());
        }
        PendingJob job = aJob().gpus(2, "H100").region("us-east-1").build();

        Unplaced unplaced = Snapshots.plan(Snapshots.of(machines), job).unplaced().get(job.jobId());

        assertThat(unplaced.reason()).isEqualTo(
                "0 of 40 machines fit: 28 are outside region us-east-1, 9 lack GPU type H100, 3 have fewer than 2 free GPUs");
    }

    @Test
    void aJobNoMachineCouldEverHostCanNeverFit() {
        Snapshot snapshot = Snapshots.of(
                aMachine("h1").withGpus(8, "H100").build(),
                aMachine("h2").withGpus(8, "H100").allocated(0, 0, 8).build(),
                aMachine("a1").withGpus(8, "A100").build());
        PendingJob job = aJob().gpus(16, "H100").build();

        Unplaced unplaced = Snapshots.plan(snapshot, job).unplaced().get(job.jobId());

        assertThat(unplaced.reason()).isEqualTo("0 of 3 machines fit: 1 lacks GPU type H100, 2 have fewer than 16 GPUs in total");
        assertThat(unplaced.kind()).isEqualTo(UnplacedKind.CAN_NEVER_FIT);
    }

    @Test
    void aRegionWithoutMachinesCanNeverFit() {
        Snapshot snapshot = Snapshots.of(aMachine("m1").region("us-east-1").build(), aMachine("m2").region("eu-west-1").build());
        PendingJob job = aJob().region("ap-south-1").build();

        Unplaced unplaced = Snapshots.plan(snapshot, job).unplaced().get(job.jobId());

        assertThat(unplaced.reason()).isEqualTo("0 of 2 machines fit: 2 are outside region ap-south-1");
        assertThat(unplaced.kind()).isEqualTo(UnplacedKind.CAN_NEVER_FIT);
    }

    @Test
    void aMachineThatCouldHostTheJobOnceHealthyMakesItOnlyNotFitNow() {
        Snapshot snapshot = Snapshots.of(
                aMachine("a1").withGpus(8, "A100").build(),
                aMachine("h1").withGpus(8, "H100").status(MachineStatus.DRAINING).build(),
                aMachine("h2").withGpus(8, "H100").heartbeatAge(Duration.ofMinutes(5)).build(),
                aMachine("h3").withGpus(8, "H100").status(MachineStatus.LOST).heartbeatAge(null).build());
        PendingJob job = aJob().gpus(1, "H100").build();

        Unplaced unplaced = Snapshots.plan(snapshot, job).unplaced().get(job.jobId());

        assertThat(unplaced.reason())
                .isEqualTo("0 of 4 machines fit: 1 lacks GPU type H100, 2 are not READY, 1 has no heartbeat in the last 30s");
        assertThat(unplaced.kind()).isEqualTo(UnplacedKind.DOES_NOT_FIT_NOW);
    }

    @Test
    void namesTheDimensionThatIsShort() {
        Snapshot snapshot = Snapshots.of(
                aMachine("m1").cores(16).memoryMb(65_536).allocated(10_000, 0, 0).build(),
                aMachine("m2").cores(16).memoryMb(65_536).allocated(0, 40_000, 0).build(),
                aMachine("m3").cores(4).memoryMb(65_536).build(),
                aMachine("m4").cores(16).memoryMb(16_384).build());
        PendingJob job = aJob().cores(8).memoryMb(32_768).build();

        Unplaced unplaced = Snapshots.plan(snapshot, job).unplaced().get(job.jobId());

        assertThat(unplaced.reason()).isEqualTo("0 of 4 machines fit: 1 has less than 8 cores in total, "
                + "1 has less than 32768 MB memory in total, 1 has less than 8 free cores, 1 has less than 32768 MB free memory");
        assertThat(unplaced.rejectedBy()).containsExactly(Map.entry("total-cpu", 1), Map.entry("total-memory", 1),
                Map.entry("free-cpu", 1), Map.entry("free-memory", 1));
        assertThat(unplaced.kind()).isEqualTo(UnplacedKind.DOES_NOT_FIT_NOW);
    }

    @Test
    void speaksOfOneMachineInTheSingular() {
        Snapshot snapshot = Snapshots.of(aMachine("m1").cores(16).allocated(12_500, 0, 0).build());
        PendingJob job = aJob().cores(4).build();

        assertThat(Snapshots.plan(snapshot, job).unplaced().get(job.jobId()).reason())
                .isEqualTo("0 of 1 machine fits: 1 has less than 4 free cores");
    }

    @Test
    void labelsAndGpuMachinesForAnUntypedGpuJob() {
        Snapshot snapshot = Snapshots.of(
                aMachine("cpu").labels(Map.of("zone", "a")).build(),
                aMachine("gpu-b").withGpus(4, "L4").labels(Map.of("zone", "b")).build(),
                aMachine("gpu-a").withGpus(4, "L4").labels(Map.of("zone", "a", "disk", "hdd")).build());
        Map<String, String> required = new LinkedHashMap<>();
        required.put("zone", "a");
        required.put("disk", "ssd");
        PendingJob job = aJob().gpus(1).labels(required).build();

        assertThat(Snapshots.plan(snapshot, job).unplaced().get(job.jobId()).reason())
                .isEqualTo("0 of 3 machines fit: 1 has no GPUs, 2 lack one of the labels disk=ssd, zone=a");
    }

    @Test
    void aJobLeftOutBecauseEarlierJobsOfThePlanTookTheRoomSaysSo() {
        Snapshot snapshot = Snapshots.of(aMachine("h1").withGpus(8, "H100").build());
        PendingJob first = aJob().gpus(6, "H100").order(1).build();
        PendingJob second = aJob().gpus(4, "H100").order(2).build();

        Plan plan = Snapshots.plan(snapshot, first, second);

        assertThat(plan.assignments()).extracting(Assignment::jobId).containsExactly(first.jobId());
        assertThat(plan.unplaced().get(second.jobId()).reason()).isEqualTo("0 of 1 machine fits: 1 has fewer than 4 free GPUs");
        assertThat(plan.unplaced().get(second.jobId()).kind()).isEqualTo(UnplacedKind.DOES_NOT_FIT_NOW);
    }

    @Test
    void aFloodOfJobsNoMachineCouldHostIsExplainedOnceForAll() {
        Snapshot snapshot = Snapshots.of(aMachine("m1").labels(Map.of("zone", "a")).build(), aMachine("m2").build());
        List<PendingJob> jobs = new ArrayList<>();
        for (int i = 1; i <= 50; i++) {
            jobs.add(aJob().cores(i % 7 + 1).labels(Map.of("generation", "next")).order(i).build());
        }
        jobs.add(aJob().cores(1).order(100).build());

        Plan plan = new PlacementEngine().plan(snapshot, jobs);

        assertThat(plan.assignments()).hasSize(1);
        assertThat(plan.unplaced()).hasSize(50).allSatisfy((id, unplaced) -> assertThat(unplaced).isEqualTo(new Unplaced(
                UnplacedKind.CAN_NEVER_FIT, "0 of 2 machines fit: 2 lack label generation=next", Map.of("labels", 2))));
    }

    @Test
    void anEmptyFleetCanHostNothing() {
        PendingJob job = aJob().build();

        Unplaced unplaced = Snapshots.plan(Snapshots.of(), job).unplaced().get(job.jobId());

        assertThat(unplaced.reason()).isEqualTo("no machines are registered");
        assertThat(unplaced.kind()).isEqualTo(UnplacedKind.CAN_NEVER_FIT);
    }

    @Test
    void aTenantOverQuotaIsHeldBackWithTheNumbers() {
        TenantView tenant = new TenantView(Jobs.TENANT_A, 1, 15_500, 0, 3, new Quota(16_000L, null, 4));
        Snapshot snapshot = Snapshots.of(List.of(aMachine("h1").cores(64).withGpus(8, "H100").build()), tenant);
        PendingJob overGpus = aJob().gpus(2, "H100").cpuMillis(500).build();
        PendingJob overBoth = aJob().gpus(2, "H100").cores(2).build();
        PendingJob neverFits = aJob().gpus(8, "H100").cores(20).build();

        Plan plan = Snapshots.plan(snapshot, overGpus, overBoth, neverFits);

        assertThat(plan.assignments()).isEmpty();
        assertThat(plan.unplaced().get(overGpus.jobId())).isEqualTo(new Unplaced(UnplacedKind.OVER_QUOTA,
                "held back by the tenant's quota: 3 of 4 GPUs in use, the job needs 2 more", Map.of()));
        assertThat(plan.unplaced().get(overBoth.jobId()).reason()).isEqualTo("held back by the tenant's quota: "
                + "3 of 4 GPUs in use, the job needs 2 more; 15.5 of 16 cores in use, the job needs 2 more");
        assertThat(plan.unplaced().get(neverFits.jobId())).isEqualTo(new Unplaced(UnplacedKind.CAN_NEVER_FIT,
                "the job needs 8 GPUs, more than the tenant's whole quota of 4 GPUs; "
                        + "the job needs 20 cores, more than the tenant's whole quota of 16 cores", Map.of()));
    }
}
