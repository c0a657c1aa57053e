package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Jobs.asGang;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.UnplacedKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Gangs: all replicas or none, ranks unique and complete, together where the scope says, never over-filling. */
class GangPropertyTest {
    private static final String[] SCOPES = {null, PendingJob.SAME_REGION, "label:zone"};

    @Test
    void neverAPartialGangAndRanksAreUniqueAndComplete() {
        int placedGangs = 0;
        int unplacedGangs = 0;
        for (long seed = 1; seed <= 400; seed++) {
            RandomCases.Case input = RandomCases.generate(seed);
            Random random = new Random(seed);
            List<PendingJob> jobs = new ArrayList<>();
            Map<UUID, PendingJob> gangs = new HashMap<>();
            for (PendingJob j : input.jobs()) {
                if (random.nextInt(3) == 0) {
                    PendingJob gang = asGang(j, 2 + random.nextInt(4), SCOPES[random.nextInt(SCOPES.length)]);
                    gangs.put(gang.jobId(), gang);
                    jobs.add(gang);
                } else {
                    jobs.add(j);
                }
            }
            Plan plan = new PlacementEngine(input.candidatesPerPool()).plan(input.snapshot(), jobs);
            Map<String, MachineView> machines = input.snapshot().machines().stream()
                    .collect(Collectors.toMap(MachineView::id, m -> m));
            Map<UUID, List<Assignment>> byJob = plan.assignments().stream().collect(Collectors.groupingBy(Assignment::jobId));
            for (PendingJob job : jobs) {
                List<Assignment> placed = byJob.getOrDefault(job.jobId(), List.of());
                assertThat(placed.isEmpty()).as("seed %d: %s placed or explained, never both", seed, job.jobId())
                        .isEqualTo(plan.unplaced().containsKey(job.jobId()));
                if (!gangs.containsKey(job.jobId())) {
                    assertThat(placed.size()).isLessThanOrEqualTo(1);
                    continue;
                }
                if (placed.isEmpty()) {
                    unplacedGangs++;
                    assertThat(plan.unplaced().get(job.jobId()).reason()).contains("a gang of " + job.replicas() + " replicas");
                    continue;
                }
                placedGangs++;
                assertThat(placed).as("seed %d: the whole gang", seed).hasSize(job.replicas());
                assertThat(placed.stream().map(Assignment::replica).collect(Collectors.toSet()))
                        .as("seed %d: ranks", seed).isEqualTo(Set.copyOf(rangeTo(job.replicas())));
                List<MachineView> on = placed.stream().map(a -> machines.get(a.machineId())).toList();
                assertThat(on.stream().map(MachineView::id).distinct()).as("seed %d: one replica per machine", seed)
                        .hasSize(job.replicas());
                if (PendingJob.SAME_REGION.equals(job.gangScope())) {
                    assertThat(on.stream().map(m -> m.machine().region()).distinct()).as("seed %d: one region", seed).hasSize(1);
                } else if ("label:zone".equals(job.gangScope())) {
                    assertThat(on.stream().map(m -> m.machine().labels().get("zone")).distinct()).as("seed %d: one zone", seed)
                            .hasSize(1).doesNotContainNull();
                }
            }
            // no machine gives more than it had free, gangs' replicas counted one by one
            Map<String, long[]> taken = new HashMap<>();
            for (Assignment a : plan.assignments()) {
                long[] t = taken.computeIfAbsent(a.machineId(), id -> new long[3]);
                t[0] += a.amounts().cpuMillis();
                t[1] += a.amounts().memoryMb();
                t[2] += a.amounts().gpus();
            }
            for (var e : taken.entrySet()) {
                MachineView m = machines.get(e.getKey());
                Amounts free = m.machine().free();
                assertThat(e.getValue()[0]).as("seed %d: cpu of %s", seed, m.id()).isLessThanOrEqualTo(free.cpuMillis());
                assertThat(e.getValue()[1]).isLessThanOrEqualTo(free.memoryMb());
                assertThat(e.getValue()[2]).isLessThanOrEqualTo(free.gpus());
            }
        }
        assertThat(placedGangs).as("gangs placed").isGreaterThan(50);
        assertThat(unplacedGangs).as("gangs not placed").isGreaterThan(20);
    }

    private static List<Integer> rangeTo(int n) {
        List<Integer> r = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            r.add(i);
        }
        return r;
    }

    @Test
    void aGangThatDoesNotFitWholeLeavesItsRoomToTheJobsAfterIt() {
        Snapshot snapshot = Snapshots.of(
                aMachine("a").region("eu").cores(8).build(),
                aMachine("b").region("eu").cores(8).build(),
                aMachine("c").region("us").cores(8).build());
        PendingJob gang = asGang(aJob().priority(900).cores(8).memoryMb(1024).build(), 3, PendingJob.SAME_REGION);
        PendingJob small = aJob().priority(100).cores(8).memoryMb(1024).build();

        Plan plan = Snapshots.plan(snapshot, gang, small);
        assertThat(plan.unplaced()).containsOnlyKeys(gang.jobId());
        assertThat(plan.unplaced().get(gang.jobId()).reason()).isEqualTo("a gang of 3 replicas is placed whole or not"
                + " at all, one per machine, and 2 machines in one region at most could ever take one of them");
        assertThat(plan.unplaced().get(gang.jobId()).kind()).isEqualTo(UnplacedKind.CAN_NEVER_FIT);
        assertThat(plan.assignments()).extracting(Assignment::jobId).containsExactly(small.jobId());

        PendingJob anywhere = asGang(gang, 3, null);
        assertThat(Snapshots.plan(snapshot, anywhere).assignments()).extracting(Assignment::machineId)
                .containsExactlyInAnyOrder("a", "b", "c");
    }

    @Test
    void aGangNeverDoublesUpOnAMachineEvenWhenOneMachineHasRoomForAllSoTwoMachinesCanNeverTakeThree() {
        Snapshot snapshot = Snapshots.of(aMachine("big").cores(64).build(), aMachine("small").cores(2).build());
        PendingJob gang = asGang(aJob().cores(1).memoryMb(64).build(), 3, null);

        Plan plan = Snapshots.plan(snapshot, gang);
        assertThat(plan.assignments()).isEmpty();
        assertThat(plan.unplaced().get(gang.jobId()).reason()).isEqualTo("a gang of 3 replicas is placed whole or not"
                + " at all, one per machine, and 2 machines at most could ever take one of them");
        assertThat(plan.unplaced().get(gang.jobId()).kind()).isEqualTo(UnplacedKind.CAN_NEVER_FIT);
    }

    @Test
    void aGangThatEnoughMachinesCouldTakeOnceTheirWorkEndsWaitsForRoomNotForNewMachines() {
        Snapshot snapshot = Snapshots.of(
                aMachine("a").cores(8).build(),
                aMachine("b").cores(8).allocated(8000, 0, 0).build(),
                aMachine("c").cores(8).allocated(8000, 0, 0).build(),
                aMachine("tiny").cores(1).build());
        PendingJob gang = asGang(aJob().cores(4).memoryMb(64).build(), 3, null);

        Unplaced unplaced = Snapshots.plan(snapshot, gang).unplaced().get(gang.jobId());
        assertThat(unplaced.kind()).as("b and c take one each once their work ends; tiny never").isEqualTo(
                UnplacedKind.DOES_NOT_FIT_NOW);
        assertThat(unplaced.reason()).contains("at most 1 fit at once (one per machine)");
    }

    @Test
    void aGangThatWaitedPastItsPatienceHoldsTheRoomItFoundFromTheJobsAfterIt() {
        Snapshot snapshot = Snapshots.of(
                aMachine("a").cores(8).build(),
                aMachine("b").cores(8).build(),
                aMachine("c").cores(8).allocated(8000, 0, 0).build());
        PendingJob gang = asGang(aJob().priority(500).cores(8).memoryMb(1024).build(), 3, null);
        PendingJob small = aJob().priority(500).cores(8).memoryMb(1024).build();

        Plan patient = Snapshots.plan(snapshot, gang, small);
        assertThat(patient.assignments()).as("a gang that does not fit holds nothing").extracting(Assignment::jobId)
                .containsExactly(small.jobId());

        Plan due = Snapshots.plan(snapshot, gang.due(), small);
        assertThat(due.assignments()).as("a due gang keeps a and b for itself").isEmpty();
        assertThat(due.unplaced()).containsOnlyKeys(gang.jobId(), small.jobId());
        assertThat(due.unplaced().get(gang.jobId()).reason()).contains("it holds the room it found for itself");
        assertThat(due.unplaced().get(gang.jobId()).kind()).isEqualTo(UnplacedKind.DOES_NOT_FIT_NOW);
        assertThat(due.held()).as("the room it kept, for the scheduler's other plans").extracting(Assignment::machineId)
                .containsExactlyInAnyOrder("a", "b");
        assertThat(due.held()).allSatisfy(h -> assertThat(h.jobId()).isEqualTo(gang.jobId()));
        assertThat(patient.held()).isEmpty();
    }

    @Test
    void aDueGangThatCouldNeverFitWholeHoldsNothing() {
        Snapshot snapshot = Snapshots.of(aMachine("a").cores(8).build(), aMachine("b").cores(8).build());
        PendingJob gang = asGang(aJob().priority(500).cores(8).memoryMb(1024).build(), 3, null).due();
        PendingJob small = aJob().priority(500).cores(8).memoryMb(1024).build();

        Plan plan = Snapshots.plan(snapshot, gang, small);
        assertThat(plan.unplaced().get(gang.jobId()).kind()).isEqualTo(UnplacedKind.CAN_NEVER_FIT);
        assertThat(plan.held()).as("3 replicas, 2 machines: no room it could take is worth holding").isEmpty();
        assertThat(plan.assignments()).extracting(Assignment::jobId).containsExactly(small.jobId());
    }
}
