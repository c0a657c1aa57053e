package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Jobs.asGang;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Amounts;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Backfill onto a waiting gang's room: only jobs that end, by their limits, before the gang can start. */
class BackfillTest {
    private static final Instant NOW = Instant.parse("2026-12-05T12:00:00Z");
    private static final Duration MARGIN = Duration.ofMinutes(1);
    private static final Amounts EIGHT_CORES = new Amounts(8000, 1024, 0);

    private static PendingJob gangOf(int replicas) {
        return asGang(aJob().priority(500).cores(8).memoryMb(1024).build(), replicas, null).due();
    }

    /** a and b empty; c and d full, each with one attempt of 8 cores that ends as given (null: no limit). */
    private static Snapshot fleet() {
        return Snapshots.of(
                aMachine("a").cores(8).build(),
                aMachine("b").cores(8).build(),
                aMachine("c").cores(8).allocated(8000, 1024, 0).build(),
                aMachine("d").cores(8).allocated(8000, 1024, 0).build());
    }

    private static Map<String, List<Backfill.Ending>> ending(Duration c, Duration d) {
        return Map.of("c", List.of(endsIn(c)), "d", List.of(endsIn(d)));
    }

    private static Backfill.Ending endsIn(Duration in) {
        return new Backfill.Ending(EIGHT_CORES, in == null ? Backfill.Ending.NEVER : NOW.plus(in).toEpochMilli());
    }

    private static Plan backfill(Snapshot snapshot, Map<String, List<Backfill.Ending>> ending, Map<UUID, Duration> limits,
            PendingJob... jobs) {
        PlacementEngine engine = new PlacementEngine();
        List<PendingJob> batch = List.of(jobs);
        return Backfill.plan(engine, snapshot, batch, engine.plan(snapshot, batch), limits, ending, MARGIN, NOW);
    }

    @Test
    void aJobThatEndsBeforeTheGangCanStartRunsOnItsRoomAndOneThatWouldNotWaits() {
        PendingJob gang = gangOf(3);
        PendingJob quick = aJob().priority(500).cores(8).memoryMb(1024).build();
        PendingJob slow = aJob().priority(500).cores(8).memoryMb(1024).build();
        // the gang holds a and b; its third replica waits for c (free in 1 h by its limit) or d (3 h)
        Plan plan = backfill(fleet(), ending(Duration.ofHours(1), Duration.ofHours(3)),
                Map.of(quick.jobId(), Duration.ofMinutes(30), slow.jobId(), Duration.ofHours(2)), gang, quick, slow);

        assertThat(plan.assignments()).extracting(Assignment::jobId).containsExactly(quick.jobId());
        String on = plan.assignments().getFirst().machineId();
        assertThat(on).isIn("a", "b");
        assertThat(plan.held()).as("the hold on the machine lent is let go").extracting(Assignment::machineId)
                .containsExactly(on.equals("a") ? "b" : "a");
        assertThat(plan.unplaced()).containsOnlyKeys(gang.jobId(), slow.jobId());
        assertThat(plan.unplaced().get(gang.jobId()).reason())
                .contains("it holds the room it found for itself")
                .contains("by the time limits of what runs, it can start by 2026-12-05T13:00:00Z")
                .contains("(backfill)");
    }

    @Test
    void withoutTheGangHoldingNothingIsBackfilled() {
        PendingJob gang = gangOf(3);
        PendingJob notDue = asGang(gang, 3, null);
        PendingJob quick = aJob().priority(500).cores(8).memoryMb(1024).build();
        Plan plan = backfill(fleet(), ending(Duration.ofHours(1), Duration.ofHours(3)),
                Map.of(quick.jobId(), Duration.ofMinutes(30)), notDue, quick);
        assertThat(plan.held()).isEmpty();
        assertThat(plan.assignments()).as("placed by the plan itself, the gang holding nothing").extracting(Assignment::jobId)
                .containsExactly(quick.jobId());
        assertThat(plan.unplaced().get(gang.jobId()).reason()).doesNotContain("time limits");
    }

    @Test
    void theGangStartsWhenAsManyMachinesAsItLacksHaveFreedByTheirLimits() {
        PendingJob gang = gangOf(4); // holds a and b, lacks two: c in 1 h and d in 3 h, so 3 h
        PendingJob twoHours = aJob().priority(500).cores(8).memoryMb(1024).build();
        Plan plan = backfill(fleet(), ending(Duration.ofHours(1), Duration.ofHours(3)),
                Map.of(twoHours.jobId(), Duration.ofHours(2)), gang, twoHours);
        assertThat(plan.assignments()).extracting(Assignment::jobId).containsExactly(twoHours.jobId());
        assertThat(plan.unplaced().get(gang.jobId()).reason()).contains("it can start by 2026-12-05T15:00:00Z");
    }

    @Test
    void anAttemptWithoutALimitLeavesTheStartUnknownAndTheRoomLentToNobody() {
        PendingJob gang = gangOf(3);
        PendingJob quick = aJob().priority(500).cores(8).memoryMb(1024).build();
        Plan plan = backfill(fleet(), ending(null, null), Map.of(quick.jobId(), Duration.ofSeconds(1)), gang, quick);
        assertThat(plan.assignments()).isEmpty();
        assertThat(plan.held()).extracting(Assignment::machineId).containsExactlyInAnyOrder("a", "b");
        assertThat(plan.unplaced().get(gang.jobId()).reason()).contains("no time is known by which it can start");

        // one machine it lacks frees at a known time: that is enough for the one replica missing
        Plan oneKnown = backfill(fleet(), ending(null, Duration.ofHours(3)), Map.of(quick.jobId(), Duration.ofSeconds(1)),
                gang, quick);
        assertThat(oneKnown.assignments()).extracting(Assignment::jobId).containsExactly(quick.jobId());
    }

    @Test
    void aJobWithoutALimitIsNeverBackfilledAndTheMarginCounts() {
        PendingJob gang = gangOf(3);
        PendingJob unlimited = aJob().priority(500).cores(8).memoryMb(1024).build();
        PendingJob exactly = aJob().priority(500).cores(8).memoryMb(1024).build();
        PendingJob aSecondTooLong = aJob().priority(500).cores(8).memoryMb(1024).build();
        Plan plan = backfill(fleet(), ending(Duration.ofHours(1), Duration.ofHours(3)),
                Map.of(exactly.jobId(), Duration.ofMinutes(59), aSecondTooLong.jobId(), Duration.ofMinutes(59).plusSeconds(1)),
                gang, unlimited, aSecondTooLong, exactly);
        assertThat(plan.assignments()).as("59 min and the 1 min margin end at the gang's start, no later")
                .extracting(Assignment::jobId).containsExactly(exactly.jobId());
    }

    /**
     * Random fleets, gangs and jobs: a backfilled job is never a gang, always has a limit, runs only on room a gang held
     * and ends, limit and margin counted, by the start of every gang that held that machine; no machine gives more than
     * it had free; every job is placed or explained, never both; a machine lent is held no more.
     */
    @Test
    void backfillNeverDelaysAGangByTheLimitsAndNeverOverfills() {
        int backfilled = 0;
        int holding = 0;
        for (long seed = 1; seed <= 300; seed++) {
            Random random = new Random(seed);
            List<MachineView> machines = new ArrayList<>();
            Map<String, List<Backfill.Ending>> ending = new HashMap<>();
            for (int m = 0; m < 3 + random.nextInt(8); m++) {
                String id = "m" + m;
                int running = random.nextInt(3);
                long usedCpu = 0;
                List<Backfill.Ending> ends = new ArrayList<>();
                for (int r = 0; r < running; r++) {
                    long cpu = 1000L * (1 + random.nextInt(4));
                    usedCpu += cpu;
                    ends.add(new Backfill.Ending(new Amounts(cpu, 512, 0), random.nextInt(5) == 0 ? Backfill.Ending.NEVER
                            : NOW.plus(Duration.ofMinutes(1 + random.nextInt(240))).toEpochMilli()));
                }
                ending.put(id, ends);
                machines.add(aMachine(id).cores(8).memoryMb(8192).allocated(usedCpu, 512L * running, 0).build());
            }
            Snapshot snapshot = Snapshots.of(machines.toArray(MachineView[]::new));
            List<PendingJob> jobs = new ArrayList<>();
            Map<UUID, Duration> limits = new HashMap<>();
            Set<UUID> gangs = new HashSet<>();
            for (int g = 0; g < 1 + random.nextInt(2); g++) {
                PendingJob gang = asGang(aJob().priority(600).cores(2 + random.nextInt(6)).memoryMb(512).build(),
                        2 + random.nextInt(machines.size()), null).due();
                jobs.add(gang);
                gangs.add(gang.jobId());
            }
            for (int s = 0; s < 2 + random.nextInt(10); s++) {
                PendingJob small = aJob().priority(500).cores(1 + random.nextInt(6)).memoryMb(256).build();
                jobs.add(small);
                if (random.nextInt(4) > 0) {
                    limits.put(small.jobId(), Duration.ofMinutes(1 + random.nextInt(240)));
                }
            }
            PlacementEngine engine = new PlacementEngine();
            Plan before = engine.plan(snapshot, jobs);
            Plan after = Backfill.plan(engine, snapshot, jobs, before, limits, ending, MARGIN, NOW);
            holding += before.held().isEmpty() ? 0 : 1;

            Map<String, List<UUID>> heldBy = new HashMap<>();
            before.held().forEach(h -> heldBy.computeIfAbsent(h.machineId(), m -> new ArrayList<>()).add(h.jobId()));
            Snapshot withPlan = snapshot.withPlaced(before.assignments());
            Map<String, List<Backfill.Ending>> withPlanEnds = new HashMap<>();
            ending.forEach((m, e) -> withPlanEnds.put(m, new ArrayList<>(e)));
            before.assignments().forEach(a -> withPlanEnds.computeIfAbsent(a.machineId(), m -> new ArrayList<>())
                    .add(new Backfill.Ending(a.amounts(), limits.containsKey(a.jobId())
                            ? NOW.plus(limits.get(a.jobId())).toEpochMilli() : Backfill.Ending.NEVER)));
            Set<String> lent = new HashSet<>();
            for (Assignment a : after.assignments().subList(before.assignments().size(), after.assignments().size())) {
                backfilled++;
                lent.add(a.machineId());
                assertThat(gangs).as("seed %d: never a gang", seed).doesNotContain(a.jobId());
                assertThat(limits).as("seed %d: only with a limit", seed).containsKey(a.jobId());
                assertThat(heldBy).as("seed %d: only on held room", seed).containsKey(a.machineId());
                long endsBy = NOW.plus(limits.get(a.jobId())).plus(MARGIN).toEpochMilli();
                for (UUID gang : heldBy.get(a.machineId())) {
                    PendingJob g = jobs.stream().filter(j -> j.jobId().equals(gang)).findFirst().orElseThrow();
                    List<Assignment> itsHolds = before.held().stream().filter(h -> h.jobId().equals(gang)).toList();
                    long start = Backfill.start(withPlan, g, itsHolds, withPlanEnds, NOW.toEpochMilli());
                    assertThat(start).as("seed %d: a known start", seed).isNotEqualTo(Backfill.Ending.NEVER);
                    assertThat(endsBy).as("seed %d: ends by the gang's start", seed).isLessThanOrEqualTo(start);
                }
            }
            assertThat(after.held()).as("seed %d: a machine lent is held no more", seed)
                    .noneMatch(h -> lent.contains(h.machineId()));
            Map<String, Long> cpu = new HashMap<>();
            after.assignments().forEach(a -> cpu.merge(a.machineId(), a.amounts().cpuMillis(), Long::sum));
            for (MachineView m : snapshot.machines()) {
                assertThat(cpu.getOrDefault(m.id(), 0L)).as("seed %d: %s never over-filled", seed, m.id())
                        .isLessThanOrEqualTo(m.machine().free().cpuMillis());
            }
            Set<UUID> placed = new HashSet<>();
            after.assignments().forEach(a -> placed.add(a.jobId()));
            for (PendingJob j : jobs) {
                assertThat(placed.contains(j.jobId())).as("seed %d: placed or explained", seed)
                        .isNotEqualTo(after.unplaced().containsKey(j.jobId()));
            }
        }
        assertThat(holding).as("cases where a gang held room").isGreaterThan(50);
        assertThat(backfilled).as("jobs backfilled over all cases").isGreaterThan(20);
    }
}
