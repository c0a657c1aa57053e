package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Amounts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Preemption's rules, on random fleets: strictly lower victims only, never in vain, never more than needed. */
class PreemptionsPropertyTest {
    private static final UUID MINE = new UUID(0, 1);
    private static final UUID THEIRS = new UUID(0, 2);

    record Case(Snapshot snapshot, Map<String, List<RunningAttempt>> running, PendingJob job) {
    }

    static Case generate(long seed) {
        Random random = new Random(seed);
        List<MachineView> machines = new ArrayList<>();
        Map<String, List<RunningAttempt>> running = new HashMap<>();
        int count = 1 + random.nextInt(6);
        for (int m = 0; m < count; m++) {
            String id = "m" + m;
            long cpu = 4000 + 1000L * random.nextInt(12);
            long memory = 8192 + 1024L * random.nextInt(24);
            int gpus = random.nextBoolean() ? 0 : 1 + random.nextInt(8);
            List<RunningAttempt> attempts = new ArrayList<>();
            Amounts used = Amounts.ZERO;
            for (int a = 0, n = random.nextInt(14); a < n; a++) {
                Amounts held = new Amounts(250 + 250L * random.nextInt(8), 256 + 256L * random.nextInt(8),
                        gpus == 0 ? 0 : random.nextInt(3));
                if (!used.plus(held).fitsIn(new Amounts(cpu, memory, gpus))) {
                    continue;
                }
                used = used.plus(held);
                attempts.add(new RunningAttempt(new UUID(m + 1, a), 1, random.nextBoolean() ? MINE : THEIRS,
                        100 * random.nextInt(10), held, random.nextInt(1000), random.nextInt(5) > 0));
            }
            running.put(id, attempts);
            machines.add(aMachine(id).cpuMillis(cpu).memoryMb(memory).withGpus(gpus, gpus > 0 ? "H100" : null)
                    .allocated(used.cpuMillis(), used.memoryMb(), used.gpus()).build());
        }
        PendingJob job = aJob().tenant(MINE).priority(100 * random.nextInt(11)).cpuMillis(500 + 500L * random.nextInt(12))
                .memoryMb(512 + 512L * random.nextInt(16)).gpus(random.nextInt(4)).build();
        return new Case(new Snapshot(machines, Map.of(), Machines.FRESH), running, job);
    }

    private static boolean eligible(RunningAttempt a, PendingJob job, Preemptions.Scope scope) {
        return a.preemptible() && a.priority() < job.priority()
                && (scope == Preemptions.Scope.ANY_TENANT || a.tenantId().equals(job.tenantId()));
    }

    private static Amounts need(PendingJob job) {
        return new Amounts(job.cpuMillis(), job.memoryMb(), job.gpuCount());
    }

    private static Amounts free(MachineView m) {
        return m.machine().free();
    }

    /** The fewest eligible attempts of the machine whose room makes the job fit, by brute force; -1 if none. */
    private static int fewest(MachineView m, List<RunningAttempt> attempts, PendingJob job, Preemptions.Scope scope) {
        List<RunningAttempt> eligible = attempts.stream().filter(a -> eligible(a, job, scope)).toList();
        int best = -1;
        for (int mask = 0; mask < 1 << eligible.size(); mask++) {
            Amounts room = free(m);
            for (int i = 0; i < eligible.size(); i++) {
                if ((mask & 1 << i) != 0) {
                    room = room.plus(eligible.get(i).held());
                }
            }
            if (need(job).fitsIn(room) && (best < 0 || Integer.bitCount(mask) < best)) {
                best = Integer.bitCount(mask);
            }
        }
        return best;
    }

    @Test
    void victimsAreStrictlyLowerNeverInVainAndNeverMoreThanNeeded() {
        int preempted = 0;
        int none = 0;
        for (long seed = 1; seed <= 3000; seed++) {
            Case c = generate(seed);
            Preemptions.Scope scope = seed % 3 == 0 ? Preemptions.Scope.OWN_TENANT : Preemptions.Scope.ANY_TENANT;
            FilterChain filters = FilterChain.beforeFreeCapacity(Machines.FRESH).forJob(c.job());
            Optional<Preemption> plan = Preemptions.plan(c.snapshot(), c.job(), c.running(), scope);
            boolean fitsAsIs = c.snapshot().machines().stream().anyMatch(m -> filters.accepts(c.job(), new MachineState(m))
                    && need(c.job()).fitsIn(free(m)));
            int fewestAnywhere = Integer.MAX_VALUE;
            for (MachineView m : c.snapshot().machines()) {
                int f = filters.accepts(c.job(), new MachineState(m)) ? fewest(m, c.running().get(m.id()), c.job(), scope) : -1;
                if (f >= 0) {
                    fewestAnywhere = Math.min(fewestAnywhere, f);
                }
            }
            if (plan.isEmpty()) {
                none++;
                assertThat(fitsAsIs || fewestAnywhere == Integer.MAX_VALUE).as("seed %d: room was to be had", seed).isTrue();
                continue;
            }
            preempted++;
            Preemption p = plan.get();
            assertThat(fitsAsIs).as("seed %d: a job that fits preempts nothing", seed).isFalse();
            MachineView machine = c.snapshot().machines().stream().filter(m -> m.id().equals(p.machineId())).findFirst()
                    .orElseThrow();
            assertThat(filters.accepts(c.job(), new MachineState(machine))).isTrue();
            Amounts room = free(machine);
            for (RunningAttempt v : p.victims()) {
                assertThat(c.running().get(p.machineId())).as("seed %d: a victim of that machine", seed).contains(v);
                assertThat(eligible(v, c.job(), scope)).as("seed %d: %s is strictly lower and preemptible", seed, v).isTrue();
                room = room.plus(v.held());
            }
            assertThat(need(c.job()).fitsIn(room)).as("seed %d: the preemptor fits once they end", seed).isTrue();
            assertThat(p.victims()).as("seed %d: the fewest on the machine", seed)
                    .hasSize(fewest(machine, c.running().get(p.machineId()), c.job(), scope));
            assertThat(p.victims().size()).as("seed %d: the fewest of all machines", seed).isEqualTo(fewestAnywhere);
            assertThat(p.victims()).doesNotHaveDuplicates();
        }
        assertThat(preempted).as("cases that preempt").isGreaterThan(300);
        assertThat(none).as("cases that do not").isGreaterThan(300);
    }

    @Test
    void amongSetsOfOneSizeTheLowestPrioritiesThenTheMostRecentlyStartedGo() {
        List<RunningAttempt> running = List.of(
                new RunningAttempt(new UUID(1, 1), 1, MINE, 300, new Amounts(4000, 1024, 0), 10, true),
                new RunningAttempt(new UUID(1, 2), 1, MINE, 100, new Amounts(4000, 1024, 0), 10, true),
                new RunningAttempt(new UUID(1, 3), 1, MINE, 100, new Amounts(4000, 1024, 0), 20, true),
                new RunningAttempt(new UUID(1, 4), 1, MINE, 50, new Amounts(4000, 1024, 0), 30, false));
        Snapshot snapshot = new Snapshot(List.of(aMachine("m").cpuMillis(16_000).allocated(16_000, 4096, 0).build()), Map.of(),
                Machines.FRESH);
        PendingJob job = aJob().tenant(MINE).priority(500).cpuMillis(4000).memoryMb(1024).build();

        Preemption p = Preemptions.plan(snapshot, job, Map.of("m", running), Preemptions.Scope.ANY_TENANT).orElseThrow();
        assertThat(p.victims()).extracting(RunningAttempt::jobId).containsExactly(new UUID(1, 3));
        assertThat(p.reason()).contains("preempts 1 lower-priority attempt on m").contains("priority 500")
                .contains(new UUID(1, 3).toString());
        RunningAttempt theirs = new RunningAttempt(new UUID(2, 1), 1, UUID.randomUUID(), 100, new Amounts(4000, 1024, 0), 10, true);
        assertThat(Preemptions.reason(job, "m", List.of(theirs))).as("another tenant's job is not named")
                .doesNotContain(theirs.jobId().toString()).contains("a job of another tenant (priority 100)");

        PendingJob notHigher = aJob().tenant(MINE).priority(100).cpuMillis(4000).memoryMb(1024).build();
        assertThat(Preemptions.plan(snapshot, notHigher, Map.of("m", running), Preemptions.Scope.ANY_TENANT))
                .as("only a strictly higher priority preempts").isEmpty();
        PendingJob tooBig = aJob().tenant(MINE).priority(900).cpuMillis(14_000).memoryMb(1024).build();
        assertThat(Preemptions.plan(snapshot, tooBig, Map.of("m", running), Preemptions.Scope.ANY_TENANT))
                .as("the opted-out attempt stays: 12 cores is all that could be freed").isEmpty();
    }

    /** Past the exact search, take-then-reprieve: no victim could be spared and the job still fit. */
    @Test
    void onAMachineWithManyCandidatesNoVictimIsOneTooMany() {
        Random random = new Random(5);
        for (int round = 0; round < 200; round++) {
            List<RunningAttempt> running = new ArrayList<>();
            long used = 0;
            for (int a = 0; a < 40; a++) {
                long cpu = 100 + 100L * random.nextInt(10);
                running.add(new RunningAttempt(new UUID(round, a), 1, MINE, random.nextInt(400), new Amounts(cpu, 1, 0),
                        random.nextInt(100), true));
                used += cpu;
            }
            Snapshot snapshot = new Snapshot(List.of(aMachine("m").cpuMillis(used).memoryMb(1024).allocated(used, 40, 0).build()),
                    Map.of(), Machines.FRESH);
            PendingJob job = aJob().tenant(MINE).priority(500).cpuMillis(2000 + 100L * random.nextInt(40)).memoryMb(1).build();
            Preemption p = Preemptions.plan(snapshot, job, Map.of("m", running), Preemptions.Scope.ANY_TENANT).orElseThrow();
            long freed = p.victims().stream().mapToLong(v -> v.held().cpuMillis()).sum();
            assertThat(freed).isGreaterThanOrEqualTo(job.cpuMillis());
            for (RunningAttempt v : p.victims()) {
                assertThat(freed - v.held().cpuMillis()).as("round %d: %s could be spared", round, v).isLessThan(job.cpuMillis());
            }
        }
    }

    /**
     * OWN_OR_OVER_SHARE, by table: on a 16-core fleet a tenant of weight w among tenants of weights W holds more than
     * its share above 16 * w / W cores; only its attempts and the preemptor's own may go.
     */
    @Test
    void withinItsFairShareATenantKeepsItsWorkWhateverTheOthersPriorities() {
        UUID other = new UUID(0, 3);
        record Row(int theirWeight, long theirsHeld, long minesHeld, boolean theirsMayGo) {
        }
        List<Row> table = List.of(
                new Row(1, 12_000, 4_000, true),   // weights 1:1, theirs 12 of 16 cores > 8: over
                new Row(1, 8_000, 8_000, false),   // exactly its share: kept
                new Row(1, 4_000, 12_000, false),  // under
                new Row(4, 12_000, 4_000, false),  // weights 4:1 (1 for MINE): share 12.8 cores, holds 12: kept
                new Row(2, 12_000, 4_000, true));  // weights 2:1: share 10.67 cores, holds 12: over
        for (Row row : table) {
            RunningAttempt theirs = new RunningAttempt(new UUID(2, 1), 1, THEIRS, 100, new Amounts(row.theirsHeld(), 1, 0),
                    10, true);
            RunningAttempt mine = new RunningAttempt(new UUID(2, 2), 1, MINE, 100, new Amounts(row.minesHeld(), 1, 0), 10, true);
            Snapshot snapshot = new Snapshot(List.of(aMachine("m").cpuMillis(16_000).memoryMb(1024).allocated(16_000, 2, 0)
                    .build()), Map.of(
                    THEIRS, new TenantView(THEIRS, row.theirWeight(), row.theirsHeld(), 1, 0, null),
                    MINE, new TenantView(MINE, 1, row.minesHeld(), 1, 0, null),
                    other, new TenantView(other, 5, 0, 0, 0, null)), // holds nothing: not contending, its weight not counted
                    Machines.FRESH);
            // more than its own attempt holds: it fits only if theirs may go
            PendingJob job = aJob().tenant(MINE).priority(500).cpuMillis(row.minesHeld() + 1).memoryMb(1).build();
            var allowed = Preemptions.victimTenants(snapshot, job, Preemptions.Scope.OWN_OR_OVER_SHARE);
            assertThat(allowed.test(MINE)).as("%s: its own tenant's", row).isTrue();
            assertThat(allowed.test(THEIRS)).as("%s: the other tenant's", row).isEqualTo(row.theirsMayGo());
            Optional<Preemption> plan = Preemptions.plan(snapshot, job, Map.of("m", List.of(theirs, mine)),
                    Preemptions.Scope.OWN_OR_OVER_SHARE);
            assertThat(plan.map(p -> p.victims().contains(theirs)).orElse(false)).as("%s: plan ends theirs", row)
                    .isEqualTo(row.theirsMayGo());
        }
        assertThat(Preemptions.victimTenants(new Snapshot(List.of(), Map.of(), Machines.FRESH), aJob().tenant(MINE).build(),
                Preemptions.Scope.ANY_TENANT).test(THEIRS)).isTrue();
    }
}
