package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.FleetMachine;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.model.PlacementStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * Random but reproducible fleets, tenants and batches for property tests: every case is a function of
 * its seed. Mixes healthy and unhealthy machines, GPU types, labels, regions, quotas, jobs that fit,
 * jobs that must wait and jobs that never fit.
 */
final class RandomCases {
    static final List<String> REGIONS = List.of("us-east-1", "eu-west-1", "ap-south-1");
    static final List<String> GPU_TYPES = List.of("A100", "H100", "L4");

    private RandomCases() {
    }

    record Case(long seed, Snapshot snapshot, List<PendingJob> jobs, int candidatesPerPool) {
        Plan plan() {
            return plan(jobs);
        }

        Plan plan(List<PendingJob> batch) {
            return new PlacementEngine(candidatesPerPool).plan(snapshot, batch);
        }
    }

    static Case generate(long seed) {
        Random random = new Random(seed);
        List<MachineView> machines = machines(random, random.nextInt(20) == 0 ? 0 : 1 + random.nextInt(60));
        List<TenantView> tenants = tenants(random, 1 + random.nextInt(4));
        Map<UUID, TenantView> byId = new HashMap<>();
        tenants.forEach(tenant -> byId.put(tenant.id(), tenant));
        List<PendingJob> jobs = jobs(random, tenants, random.nextInt(80));
        int[] windows = {1, 2, 4, PlacementEngine.DEFAULT_CANDIDATES_PER_POOL};
        return new Case(seed, new Snapshot(machines, byId, Machines.FRESH), jobs, windows[random.nextInt(windows.length)]);
    }

    static List<MachineView> machines(Random random, int count) {
        List<MachineView> machines = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            boolean gpu = random.nextInt(10) < 3;
            int gpus = gpu ? new int[] {1, 2, 4, 8}[random.nextInt(4)] : 0;
            String type = gpu ? (random.nextInt(20) == 0 ? null : pick(random, GPU_TYPES)) : null;
            long cpu = new long[] {2000, 4000, 8000, 16_000, 32_000, 64_000}[random.nextInt(6)];
            long memory = 1024L << random.nextInt(9);
            long usedCpu = used(random, cpu);
            long usedMemory = used(random, memory);
            int usedGpus = (int) used(random, gpus);
            Map<String, String> labels = new HashMap<>();
            if (random.nextInt(10) < 7) {
                labels.put("zone", pick(random, List.of("a", "b", "c")));
            }
            if (random.nextBoolean()) {
                labels.put("disk", pick(random, List.of("ssd", "hdd")));
            }
            MachineStatus status = random.nextInt(10) < 8 ? MachineStatus.READY : pick(random, List.of(MachineStatus.values()));
            int heartbeat = random.nextInt(20);
            Duration age = heartbeat == 0 ? null
                    : heartbeat < 3 ? Duration.ofSeconds(31 + random.nextInt(300)) : Duration.ofMillis(random.nextInt(30_001));
            machines.add(new MachineView(new FleetMachine(String.format("m-%03d", i), pick(random, REGIONS), labels, type,
                    new Amounts(cpu, memory, gpus), new Amounts(usedCpu, usedMemory, usedGpus), status), age));
        }
        Collections.shuffle(machines, random);
        return machines;
    }

    private static long used(Random random, long total) {
        int kind = random.nextInt(10);
        if (kind < 3 || total == 0) {
            return 0;
        }
        if (kind == 3) {
            return total;
        }
        return random.nextLong(total + 1);
    }

    static List<TenantView> tenants(Random random, int count) {
        List<TenantView> tenants = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Quota quota = random.nextInt(5) > 0 ? Quota.UNLIMITED : new Quota(
                    random.nextBoolean() ? null : 16_000L + 1000L * random.nextInt(64),
                    random.nextBoolean() ? null : 32_768L + 1024L * random.nextInt(64),
                    random.nextBoolean() ? null : random.nextInt(9));
            tenants.add(new TenantView(Jobs.tenant(i + 1), 1 + random.nextInt(3), random.nextInt(16_000),
                    random.nextInt(32_768), random.nextInt(4), quota));
        }
        return tenants;
    }

    static List<PendingJob> jobs(Random random, List<TenantView> tenants, int count) {
        List<Long> orders = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            orders.add(i);
        }
        Collections.shuffle(orders, random);
        List<PendingJob> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int gpus = random.nextInt(4) > 0 ? 0 : new int[] {1, 2, 4, 8, 16}[random.nextInt(5)];
            List<String> types = List.of();
            int typing = random.nextInt(10);
            if (gpus > 0 && typing >= 4) {
                types = typing < 7 ? List.of(pick(random, GPU_TYPES)) : List.of("A100", "H100");
            } else if (gpus == 0 && typing == 0 && random.nextInt(4) == 0) {
                types = List.of(pick(random, GPU_TYPES));
            }
            long cpu = random.nextInt(20) == 0 ? 100_000 : 100 + random.nextInt(16_000);
            long memory = random.nextInt(20) == 0 ? 1_000_000 : 128 + random.nextInt(65_536);
            Map<String, String> labels = new HashMap<>();
            if (random.nextInt(5) == 0) {
                labels.put("zone", pick(random, List.of("a", "b", "c")));
            }
            if (random.nextInt(10) == 0) {
                labels.put("disk", "ssd");
            }
            jobs.add(new PendingJob(Jobs.jobId(i + 1), pick(random, tenants).id(),
                    new int[] {0, 500, 500, 500, 1000}[random.nextInt(5)], cpu, memory, gpus, types,
                    random.nextInt(10) < 3 ? pick(random, REGIONS) : null, labels,
                    random.nextInt(5) == 0 ? PlacementStrategy.SPREAD : PlacementStrategy.BINPACK, orders.get(i)));
        }
        return jobs;
    }

    static <T> T pick(Random random, List<T> items) {
        return items.get(random.nextInt(items.size()));
    }
}
