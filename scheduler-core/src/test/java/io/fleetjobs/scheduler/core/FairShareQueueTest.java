package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.MachineStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FairShareQueueTest {

    @Test
    void everyJobOfAHigherPriorityComesBeforeAnyOfALowerOne() {
        List<PendingJob> jobs = List.of(
                aJob().id(1).tenant(Jobs.TENANT_A).priority(10).order(1).build(),
                aJob().id(2).tenant(Jobs.TENANT_B).priority(900).order(5).build(),
                aJob().id(3).tenant(Jobs.TENANT_A).priority(500).order(2).build(),
                aJob().id(4).tenant(Jobs.TENANT_C).priority(900).order(9).build());

        assertThat(handOut(cluster(16), jobs, job -> true)).containsExactly(2L, 4L, 3L, 1L);
    }

    @Test
    void theLowestDominantShareGoesNextAsPlacementsChargeTheTenants() {
        List<PendingJob> jobs = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            jobs.add(aJob().id(i).tenant(Jobs.TENANT_A).cores(1).order(i).build());
            jobs.add(aJob().id(10 + i).tenant(Jobs.TENANT_B).cores(1).order(10 + i).build());
        }

        // FIFO alone would be 1, 2, 3, 11, 12, 13; fair share alternates, the older first on a tie
        assertThat(handOut(cluster(10), jobs, job -> true)).containsExactly(1L, 11L, 2L, 12L, 3L, 13L);
    }

    @Test
    void aTenantWhoseJobsFindNoMachineKeepsItsTurn() {
        List<PendingJob> jobs = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            jobs.add(aJob().id(i).tenant(Jobs.TENANT_A).cores(1).order(i).build());
            jobs.add(aJob().id(10 + i).tenant(Jobs.TENANT_B).cores(1).order(10 + i).build());
        }

        Predicate<PendingJob> placedOnlyForB = job -> job.tenantId().equals(Jobs.TENANT_B);
        assertThat(handOut(cluster(10), jobs, placedOnlyForB)).containsExactly(1L, 2L, 3L, 11L, 12L, 13L);
    }

    @Test
    void aTenantOfWeightTwoGetsTwiceTheJobs() {
        TenantView a = new TenantView(Jobs.TENANT_A, 2, 0, 0, 0, null);
        TenantView b = new TenantView(Jobs.TENANT_B, 1, 0, 0, 0, null);
        List<PendingJob> jobs = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            jobs.add(aJob().id(i).tenant(Jobs.TENANT_A).cores(1).order(i).build());
            jobs.add(aJob().id(10 + i).tenant(Jobs.TENANT_B).cores(1).order(10 + i).build());
        }

        List<Long> firstNine = handOut(Snapshots.of(List.of(aMachine("m").cores(12).build()), a, b), jobs, job -> true)
                .subList(0, 9);

        Map<Boolean, Long> byTenant = firstNine.stream().collect(Collectors.partitioningBy(id -> id < 10, Collectors.counting()));
        assertThat(byTenant).containsEntry(true, 6L).containsEntry(false, 3L);
    }

    @Test
    void theDominantShareIsTheLargestFractionOverTheDimensionsDividedByWeight() {
        Snapshot snapshot = Snapshots.of(List.of(
                        aMachine("gpu").cores(30).memoryMb(100_000).withGpus(8, "H100").build(),
                        aMachine("cpu").cores(10).memoryMb(100_000).build(),
                        aMachine("lost").cores(1000).memoryMb(1_000_000).status(MachineStatus.LOST).build()),
                new TenantView(Jobs.TENANT_A, 1, 10_000, 20_000, 2, null),
                new TenantView(Jobs.TENANT_B, 2, 10_000, 20_000, 2, null));
        TenantLedger ledger = new TenantLedger(snapshot);

        // A: CPU 10/40, memory 20k/200k, GPUs 2/8: the largest is 1/4 (the LOST machine counts for nothing)
        assertThat(ledger.dominantShare(Jobs.TENANT_A)).isEqualTo(0.25);
        assertThat(ledger.dominantShare(Jobs.TENANT_B)).isEqualTo(0.125);
        assertThat(ledger.dominantShare(Jobs.TENANT_C)).isZero();
        ledger.charge(aJob().tenant(Jobs.TENANT_C).cores(1).memoryMb(100_000).build());
        assertThat(ledger.dominantShare(Jobs.TENANT_C)).isEqualTo(0.5);
    }

    private static Snapshot cluster(int cores) {
        return Snapshots.of(aMachine("m").cores(cores).build());
    }

    /** Drains the queue, charging the ledger for the jobs {@code placed} accepts; returns the ids' numbers. */
    private static List<Long> handOut(Snapshot snapshot, List<PendingJob> jobs, Predicate<PendingJob> placed) {
        TenantLedger ledger = new TenantLedger(snapshot);
        FairShareQueue queue = new FairShareQueue(jobs, ledger);
        List<Long> order = new ArrayList<>();
        for (PendingJob job = queue.next(); job != null; job = queue.next()) {
            order.add(job.jobId().getLeastSignificantBits());
            if (placed.test(job)) {
                ledger.charge(job);
            }
        }
        return order;
    }
}
