package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.PlacementStrategy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MachineIndexTest {

    @ParameterizedTest(name = "{0} millicores: column {1}")
    @CsvSource({"-5, 0", "0, 0", "7, 7", "8, 8", "15, 15", "16, 16", "17, 16", "18, 17", "1000, 63", "1023, 63",
            "1024, 64", "64000, 111", "128000, 119"})
    void cpuColumnsAreExactForTinyAmountsThenEightPerDoubling(long millis, int column) {
        assertThat(Pool.cpuBucket(millis)).isEqualTo(column);
    }

    @Test
    void cpuColumnsNeverGoDownAsFreeCpuGoesUp() {
        int previous = 0;
        for (long millis = 0; millis < 1 << 20; millis++) {
            int column = Pool.cpuBucket(millis);
            assertThat(column).isGreaterThanOrEqualTo(previous);
            previous = column;
        }
    }

    @Test
    void visitsTightestFirstForBinPackingAndLoosestFirstForSpread() {
        MachineIndex index = new MachineIndex();
        List<String> ids = List.of("c8", "c2", "c32", "c4", "c16");
        for (String id : ids) {
            index.add(aMachine(id).cores(Integer.parseInt(id.substring(1))).state());
        }
        PendingJob job = aJob().cores(3).build();

        assertThat(visited(index, job, true)).containsExactly("c4", "c8", "c16", "c32");
        assertThat(visited(index, job, false)).containsExactly("c32", "c16", "c8", "c4");
    }

    @Test
    void aPlacementMovesTheMachineToTheBucketOfItsFreeCapacity() {
        MachineIndex index = new MachineIndex();
        MachineState machine = aMachine("m1").cores(16).withGpus(8, "H100").state();
        index.add(machine);
        PendingJob big = aJob().cores(8).gpus(6, "H100").build();
        PendingJob small = aJob().cores(1).gpus(1, "H100").build();

        assertThat(visited(index, big, true)).containsExactly("m1");
        index.take(machine, big);
        assertThat(visited(index, big, true)).isEmpty();
        assertThat(visited(index, small, true)).containsExactly("m1");
    }

    /**
     * The index's contract, on {@value Seeds#CASES} random fleets: it offers every machine that fits, and
     * every machine it offers passes the filters it is trusted with (all but {@link FilterChain#afterIndex}).
     */
    @Test
    void offersEveryMachineThatFitsAndOnlyMachinesOfTheRightKind() {
        Seeds.forEach(seed -> {
            Random random = new Random(seed);
            List<MachineView> views = RandomCases.machines(random, 1 + random.nextInt(80));
            List<PendingJob> jobs = RandomCases.jobs(random, RandomCases.tenants(random, 1), 30);
            FilterChain all = FilterChain.standard(Machines.FRESH);
            Set<String> trusted = new HashSet<>(List.of("region", "gpu-type", "total-gpu", "total-cpu", "total-memory",
                    "ready", "heartbeat"));
            List<MachineState> machines = new ArrayList<>();
            MachineIndex index = new MachineIndex();
            for (MachineView view : views) {
                MachineState machine = new MachineState(view);
                machines.add(machine);
                if (ReadyFilter.isReady(view) && new HeartbeatFilter(Machines.FRESH).isFresh(view)) {
                    index.add(machine);
                }
            }
            for (PendingJob job : jobs) {
                boolean tightestFirst = job.strategy() == PlacementStrategy.BINPACK;
                Set<String> offered = new HashSet<>(visited(index, job, tightestFirst));
                for (MachineState machine : machines) {
                    if (all.accepts(job, machine)) {
                        assertThat(offered).as("fitting %s offered for %s", machine, job).contains(machine.id());
                    }
                    if (offered.contains(machine.id()) && FilterChain.afterIndex().accepts(job, machine)) {
                        for (MachineFilter filter : all.filters()) {
                            if (trusted.contains(filter.name())) {
                                assertThat(filter.accepts(job, machine)).as("%s on %s for %s", filter.name(), machine, job)
                                        .isTrue();
                            }
                        }
                    }
                }
                // place it somewhere that fits, as a plan would, so later jobs see a changed index
                machines.stream().filter(machine -> all.accepts(job, machine)).findFirst()
                        .ifPresent(machine -> index.take(machine, job));
            }
        });
    }

    /** The promise of {@link MachineFilter#appliesTo}: a filter that does not apply accepts every machine. */
    @Test
    void aFilterThatDoesNotApplyToAJobAcceptsEveryMachine() {
        Seeds.forEach(seed -> {
            Random random = new Random(seed);
            List<MachineView> views = RandomCases.machines(random, 30);
            for (PendingJob job : RandomCases.jobs(random, RandomCases.tenants(random, 1), 30)) {
                for (MachineFilter filter : FilterChain.standard(Machines.FRESH).filters()) {
                    if (!filter.appliesTo(job)) {
                        for (MachineView view : views) {
                            assertThat(filter.accepts(job, new MachineState(view))).as("%s for %s", filter.name(), job).isTrue();
                        }
                    }
                }
            }
        });
    }

    private static List<String> visited(MachineIndex index, PendingJob job, boolean tightestFirst) {
        List<String> ids = new ArrayList<>();
        for (List<Pool> tier : index.tiers(job)) {
            for (Pool pool : tier) {
                pool.visit(job, tightestFirst, machine -> {
                    if (machine.freeCpuMillis() >= job.cpuMillis()) {
                        ids.add(machine.id());
                    }
                    return true;
                });
            }
        }
        return ids;
    }
}
