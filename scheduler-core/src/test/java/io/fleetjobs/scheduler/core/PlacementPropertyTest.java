package io.fleetjobs.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.PlacementStrategy;
import io.fleetjobs.model.UnplacedKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Properties of every plan, each checked on {@value Seeds#CASES} random cases ({@link RandomCases}).
 * The checks are written against the snapshot and the filter classes, not against the engine's index.
 */
class PlacementPropertyTest {

    @Test
    void noPlacementExceedsAMachinesFreeCapacityInAnyDimension() {
        Seeds.forEach(seed -> {
            RandomCases.Case input = RandomCases.generate(seed);
            Map<String, Amounts> taken = new HashMap<>();
            for (Assignment assignment : input.plan().assignments()) {
                taken.merge(assignment.machineId(), assignment.amounts(), Amounts::plus);
            }
            Map<String, MachineView> machines = machinesById(input.snapshot());
            taken.forEach((id, sum) -> {
                MachineView machine = machines.get(id);
                assertThat(machine).as("machine %s exists", id).isNotNull();
                Amounts free = machine.machine().free();
                assertThat(sum.cpuMillis()).as("CPU on %s", id).isLessThanOrEqualTo(free.cpuMillis());
                assertThat(sum.memoryMb()).as("memory on %s", id).isLessThanOrEqualTo(free.memoryMb());
                assertThat(sum.gpus()).as("GPUs on %s", id).isLessThanOrEqualTo(free.gpus());
            });
        });
    }

    @Test
    void everyPlacementPassesEveryFilterAtTheMomentItIsMade() {
        Seeds.forEach(seed -> {
            RandomCases.Case input = RandomCases.generate(seed);
            FilterChain filters = FilterChain.standard(input.snapshot().heartbeatFreshness());
            Map<UUID, PendingJob> jobs = jobsById(input.jobs());
            Map<String, MachineState> states = states(input.snapshot());
            for (Assignment assignment : input.plan().assignments()) {
                PendingJob job = jobs.get(assignment.jobId());
                MachineState machine = states.get(assignment.machineId());
                for (MachineFilter filter : filters.filters()) {
                    assertThat(filter.accepts(job, machine))
                            .as("%s accepts job %s on %s", filter.name(), job.jobId(), machine).isTrue();
                }
                assertThat(assignment).isEqualTo(new Assignment(job.jobId(), job.tenantId(), machine.id(),
                        new Amounts(job.cpuMillis(), job.memoryMb(), job.gpuCount())));
                machine.take(job);
            }
        });
    }

    @Test
    void everyJobIsEitherPlacedOnceOrLeftWithAReason() {
        Seeds.forEach(seed -> {
            RandomCases.Case input = RandomCases.generate(seed);
            Plan plan = input.plan();
            Set<UUID> placed = new HashSet<>();
            for (Assignment assignment : plan.assignments()) {
                assertThat(placed.add(assignment.jobId())).as("%s placed once", assignment.jobId()).isTrue();
            }
            for (PendingJob job : input.jobs()) {
                boolean unplaced = plan.unplaced().containsKey(job.jobId());
                assertThat(placed.contains(job.jobId()) ^ unplaced).as("job %s placed xor unplaced", job.jobId()).isTrue();
                if (unplaced) {
                    assertThat(plan.unplaced().get(job.jobId()).reason()).isNotBlank();
                }
            }
            assertThat(plan.assignments().size() + plan.unplaced().size()).isEqualTo(input.jobs().size());
        });
    }

    @Test
    void aJobLeftOutForWantOfAMachineFitsNoneAndItsKindAndCountsAgree() {
        Seeds.forEach(seed -> {
            RandomCases.Case input = RandomCases.generate(seed);
            Plan plan = input.plan();
            FilterChain filters = FilterChain.standard(input.snapshot().heartbeatFreshness());
            Map<String, MachineState> states = states(input.snapshot());
            Map<UUID, PendingJob> jobs = jobsById(input.jobs());
            plan.assignments().forEach(a -> states.get(a.machineId()).take(jobs.get(a.jobId())));

            plan.unplaced().forEach((jobId, unplaced) -> {
                if (unplaced.rejectedBy().isEmpty()) {
                    // held back before any machine was looked at: quota, or an empty fleet
                    assertThat(unplaced.reason()).matches("held back by the tenant's quota: .*|the job needs .*"
                            + "|no machines are registered");
                    return;
                }
                PendingJob job = jobs.get(jobId);
                boolean couldEverHost = false;
                for (MachineState machine : states.values()) {
                    // free capacity only shrinks within a plan: no fit at the end means none when it was decided
                    assertThat(filters.accepts(job, machine)).as("unplaced job %s fits %s", jobId, machine).isFalse();
                    couldEverHost |= filters.filters().stream().filter(MachineFilter::permanent)
                            .allMatch(filter -> filter.accepts(job, machine));
                }
                assertThat(unplaced.kind()).isEqualTo(
                        couldEverHost ? UnplacedKind.DOES_NOT_FIT_NOW : UnplacedKind.CAN_NEVER_FIT);
                assertThat(unplaced.rejectedBy().values().stream().mapToInt(Integer::intValue).sum())
                        .isEqualTo(input.snapshot().machines().size());
                assertThat(unplaced.reason()).startsWith("0 of " + input.snapshot().machines().size() + " machine");
                boolean attributesAlone = filters.filters().stream()
                        .filter(filter -> unplaced.rejectedBy().containsKey(filter.name()))
                        .allMatch(filter -> filter.stage() == MachineFilter.Stage.ATTRIBUTE);
                if (attributesAlone) {
                    // such an explanation holds for the whole plan: a fresh one at the end says the same
                    List<MachineState> all = new ArrayList<>(states.values());
                    assertThat(new Explainer(all, filters).explain(job).unplaced()).isEqualTo(unplaced);
                }
            });
        });
    }

    @Test
    void noTenantGoesOverItsQuota() {
        Seeds.forEach(seed -> {
            RandomCases.Case input = RandomCases.generate(seed);
            Map<UUID, PendingJob> jobs = jobsById(input.jobs());
            Map<UUID, Amounts> placed = new HashMap<>();
            for (Assignment assignment : input.plan().assignments()) {
                placed.merge(jobs.get(assignment.jobId()).tenantId(), assignment.amounts(), Amounts::plus);
            }
            placed.forEach((tenantId, sum) -> {
                TenantView tenant = input.snapshot().tenant(tenantId);
                Quota quota = tenant.quota();
                if (quota.cpuMillis() != null) {
                    assertThat(sum.cpuMillis()).isLessThanOrEqualTo(Math.max(0, quota.cpuMillis() - tenant.usedCpuMillis()));
                }
                if (quota.memoryMb() != null) {
                    assertThat(sum.memoryMb()).isLessThanOrEqualTo(Math.max(0, quota.memoryMb() - tenant.usedMemoryMb()));
                }
                if (quota.gpuCount() != null) {
                    assertThat((long) sum.gpus()).isLessThanOrEqualTo(Math.max(0, quota.gpuCount() - tenant.usedGpus()));
                }
            });
        });
    }

    @Test
    void thePlanDoesNotDependOnTheOrderOfMachinesOrJobs() {
        Seeds.forEach(seed -> {
            RandomCases.Case input = RandomCases.generate(seed);
            List<MachineView> machines = new ArrayList<>(input.snapshot().machines());
            List<PendingJob> jobs = new ArrayList<>(input.jobs());
            Collections.shuffle(machines, new Random(seed));
            Collections.shuffle(jobs, new Random(seed));
            Snapshot shuffled = new Snapshot(machines, input.snapshot().tenants(), input.snapshot().heartbeatFreshness());

            Plan again = new PlacementEngine(input.candidatesPerPool()).plan(shuffled, jobs);

            assertThat(again).isEqualTo(input.plan());
        });
    }

    @Test
    void withAnUnboundedWindowEachPlacementIsTheBestScoringMachineOfAll() {
        Seeds.forEach(seed -> {
            RandomCases.Case input = RandomCases.generate(seed);
            Plan plan = new PlacementEngine(Integer.MAX_VALUE).plan(input.snapshot(), input.jobs());
            FilterChain filters = FilterChain.standard(input.snapshot().heartbeatFreshness());
            Map<UUID, PendingJob> jobs = jobsById(input.jobs());
            Map<String, MachineState> states = states(input.snapshot());
            for (Assignment assignment : plan.assignments()) {
                PendingJob job = jobs.get(assignment.jobId());
                Scorer scorer = WeightedScorer.forStrategy(job.strategy());
                MachineState best = null;
                for (MachineState machine : states.values()) {
                    if (filters.accepts(job, machine) && (best == null
                            || scorer.score(job, machine) > scorer.score(job, best)
                            || (scorer.score(job, machine) == scorer.score(job, best) && machine.id().compareTo(best.id()) < 0))) {
                        best = machine;
                    }
                }
                assertThat(assignment.machineId()).as("best machine for %s", job).isEqualTo(best.id());
                states.get(assignment.machineId()).take(job);
            }
        });
    }

    @Test
    void theStrategyChangesWhereAJobGoesNeverWhetherItFits() {
        Seeds.forEach(seed -> {
            RandomCases.Case input = RandomCases.generate(seed);
            for (PendingJob job : input.jobs().subList(0, Math.min(10, input.jobs().size()))) {
                boolean binPacked = input.plan(List.of(job.withStrategy(PlacementStrategy.BINPACK))).unplaced().isEmpty();
                boolean spread = input.plan(List.of(job.withStrategy(PlacementStrategy.SPREAD))).unplaced().isEmpty();
                assertThat(spread).as("job %s placed under SPREAD as under BINPACK", job).isEqualTo(binPacked);
            }
        });
    }

    /** Guards the properties above against passing vacuously: the random cases reach every outcome. */
    @Test
    void theRandomCasesReachEveryOutcome() {
        Map<String, Integer> outcomes = new HashMap<>();
        for (long seed = 1; seed <= Seeds.CASES; seed++) {
            Plan plan = RandomCases.generate(seed).plan();
            outcomes.merge("placed", plan.assignments().size(), Integer::sum);
            plan.unplaced().values().forEach(unplaced -> outcomes.merge(
                    unplaced.kind() + (unplaced.rejectedBy().isEmpty() ? " before search" : ""), 1, Integer::sum));
        }
        System.out.println("outcomes over " + Seeds.CASES + " cases: " + outcomes);
        assertThat(outcomes).containsKeys("placed", "DOES_NOT_FIT_NOW", "CAN_NEVER_FIT", "OVER_QUOTA before search",
                "CAN_NEVER_FIT before search");
        assertThat(outcomes.get("placed")).isGreaterThan(3000);
        assertThat(outcomes.get("DOES_NOT_FIT_NOW")).isGreaterThan(500);
    }

    static Map<String, MachineView> machinesById(Snapshot snapshot) {
        Map<String, MachineView> byId = new HashMap<>();
        snapshot.machines().forEach(machine -> byId.put(machine.id(), machine));
        return byId;
    }

    static Map<String, MachineState> states(Snapshot snapshot) {
        Map<String, MachineState> byId = new HashMap<>();
        snapshot.machines().forEach(machine -> byId.put(machine.id(), new MachineState(machine)));
        return byId;
    }

    static Map<UUID, PendingJob> jobsById(List<PendingJob> jobs) {
        Map<UUID, PendingJob> byId = new HashMap<>();
        jobs.forEach(job -> byId.put(job.jobId(), job));
        return byId;
    }
}
