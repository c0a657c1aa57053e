package io.fleetjobs.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.FleetMachine;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.model.PlacementStrategy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Tenants of equal weight flooding the queue end the plan with nearly equal dominant shares.
 *
 * <p>Tolerance: the largest dominant share of any single job of the batch. Why it holds: a tenant is
 * served only while it has the lowest share in line, so just before its last placement its share was
 * at most the share of the tenant that ends lowest; that placement adds at most one job's share. The
 * tenants flood the queue (each alone asks for more than the cluster holds) with jobs of the same
 * shapes, so none runs out of jobs while another still places: a shape that fails for one tenant
 * fails for all, capacity only shrinking within a plan.
 */
class FairSharePropertyTest {

    @Test
    void equalWeightTenantsFloodingTheQueueEndWithinOneJobOfEachOther() {
        Seeds.forEach(seed -> {
            Random random = new Random(seed);
            List<MachineView> machines = RandomCases.machines(random, 5 + random.nextInt(40)).stream()
                    .map(FairSharePropertyTest::healthyAndEmpty).toList();
            int weight = 1 + random.nextInt(3);
            int tenantCount = 2 + random.nextInt(3);
            List<TenantView> tenants = new ArrayList<>();
            for (int i = 0; i < tenantCount; i++) {
                tenants.add(new TenantView(Jobs.tenant(i + 1), weight, 0, 0, 0, null));
            }
            List<Amounts> shapes = new ArrayList<>();
            for (int i = 1 + random.nextInt(4); i > 0; i--) {
                shapes.add(new Amounts(250 + random.nextInt(4000), 256 + random.nextInt(8192),
                        random.nextInt(5) == 0 ? 1 + random.nextInt(2) : 0));
            }
            Snapshot snapshot = Snapshots.of(machines, tenants.toArray(TenantView[]::new));
            Totals totals = Totals.of(snapshot);
            List<PendingJob> jobs = flood(random, tenants, shapes, totals);

            Plan plan = new PlacementEngine().plan(snapshot, jobs);

            Map<UUID, Amounts> held = new HashMap<>();
            tenants.forEach(tenant -> held.put(tenant.id(), Amounts.ZERO));
            Map<UUID, PendingJob> byId = PlacementPropertyTest.jobsById(jobs);
            for (Assignment assignment : plan.assignments()) {
                held.merge(byId.get(assignment.jobId()).tenantId(), assignment.amounts(), Amounts::plus);
            }
            double tolerance = jobs.stream().mapToDouble(job -> totals.dominantShare(
                    job.cpuMillis(), job.memoryMb(), job.gpuCount()) / weight).max().orElse(0);
            List<Double> shares = held.values().stream()
                    .map(sum -> totals.dominantShare(sum.cpuMillis(), sum.memoryMb(), sum.gpus()) / weight).toList();
            double spread = Collections.max(shares) - Collections.min(shares);

            assertThat(spread).as("dominant shares %s, tolerance %s", shares, tolerance)
                    .isLessThanOrEqualTo(tolerance + 1e-12);
        });
    }

    /** Each tenant alone asks for about twice what the cluster has, cycling through the shapes. */
    private static List<PendingJob> flood(Random random, List<TenantView> tenants, List<Amounts> shapes, Totals totals) {
        double smallest = shapes.stream().mapToDouble(shape -> totals.dominantShare(shape.cpuMillis(), shape.memoryMb(), shape.gpus()))
                .min().orElseThrow();
        int perTenant = (int) Math.ceil(2 / smallest) + shapes.size();
        List<PendingJob> jobs = new ArrayList<>();
        long id = 1;
        for (TenantView tenant : tenants) {
            for (int i = 0; i < perTenant; i++) {
                Amounts shape = shapes.get(i % shapes.size());
                jobs.add(new PendingJob(Jobs.jobId(id++), tenant.id(), 500, shape.cpuMillis(), shape.memoryMb(), shape.gpus(), List.of(),
                        null, Map.of(), random.nextBoolean() ? PlacementStrategy.BINPACK : PlacementStrategy.SPREAD,
                        random.nextInt(1_000_000)));
            }
        }
        return jobs;
    }

    private static MachineView healthyAndEmpty(MachineView machine) {
        FleetMachine m = machine.machine();
        return new MachineView(new FleetMachine(m.id(), m.region(), m.labels(), m.gpuType(), m.capacity(), Amounts.ZERO,
                MachineStatus.READY), Machines.FRESH);
    }

    /** The cluster's totals, computed here independently of {@link TenantLedger}. */
    private record Totals(double cpuMillis, double memoryMb, double gpus) {
        static Totals of(Snapshot snapshot) {
            double cpu = 0;
            double memory = 0;
            double gpus = 0;
            for (MachineView machine : snapshot.machines()) {
                cpu += machine.machine().capacity().cpuMillis();
                memory += machine.machine().capacity().memoryMb();
                gpus += machine.machine().capacity().gpus();
            }
            return new Totals(cpu, memory, gpus);
        }

        double dominantShare(long cpu, long memory, long gpuCount) {
            double share = Math.max(cpu / cpuMillis, memory / memoryMb);
            return gpus == 0 ? share : Math.max(share, gpuCount / gpus);
        }
    }
}
