package io.fleetjobs.bench;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.FleetMachine;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.model.PlacementStrategy;
import io.fleetjobs.scheduler.core.MachineView;
import io.fleetjobs.scheduler.core.PendingJob;
import io.fleetjobs.scheduler.core.Quota;
import io.fleetjobs.scheduler.core.Snapshot;
import io.fleetjobs.scheduler.core.TenantView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * A synthetic fleet and workload, the same for a given seed: four regions of unequal size, 85% CPU
 * machines (16 to 96 cores), 15% GPU machines (A100 and H100 with 8 GPUs, L4 with 4), zone and disk
 * labels, machines 0-60% allocated, about 2% of them unhealthy; jobs 80% CPU (0.5-8 cores, 1-32 GB)
 * and 20% GPU (1-8 GPUs, named types, alternatives or any), some with a region, a zone or a disk
 * label, some spread, three priorities, twenty tenants.
 */
final class Fleet {
    static final Duration FRESHNESS = Duration.ofSeconds(30);
    private static final String[] REGIONS = {"us-east-1", "us-east-1", "us-east-1", "us-east-1",
            "us-west-2", "us-west-2", "us-west-2", "eu-west-1", "eu-west-1", "ap-south-1"};
    private static final String[] ZONES = {"a", "b", "c"};

    private Fleet() {
    }

    static Snapshot snapshot(long seed, int machineCount, int tenantCount) {
        Random random = new Random(seed);
        List<MachineView> machines = new ArrayList<>(machineCount);
        for (int i = 0; i < machineCount; i++) {
            machines.add(machine(random, i));
        }
        Map<UUID, TenantView> tenants = new HashMap<>();
        for (int i = 0; i < tenantCount; i++) {
            UUID id = tenant(i);
            tenants.put(id, new TenantView(id, 1 + random.nextInt(3), 0, 0, 0, Quota.UNLIMITED));
        }
        return new Snapshot(machines, tenants, FRESHNESS);
    }

    private static MachineView machine(Random random, int i) {
        String region = REGIONS[random.nextInt(REGIONS.length)];
        Map<String, String> labels = new HashMap<>();
        labels.put("zone", ZONES[random.nextInt(ZONES.length)]);
        labels.put("disk", random.nextInt(10) < 6 ? "ssd" : "hdd");
        String gpuType = null;
        int gpus = 0;
        long cores;
        long memoryGb;
        int kind = random.nextInt(100);
        if (kind < 6) {
            gpuType = "A100";
            gpus = 8;
            cores = 96;
            memoryGb = 1024;
        } else if (kind < 10) {
            gpuType = "H100";
            gpus = 8;
            cores = 112;
            memoryGb = 2048;
        } else if (kind < 15) {
            gpuType = "L4";
            gpus = 4;
            cores = 48;
            memoryGb = 192;
        } else {
            cores = new long[] {16, 32, 64, 96}[random.nextInt(4)];
            memoryGb = cores * (random.nextBoolean() ? 4 : 8);
        }
        long cpuMillis = cores * 1000;
        long memoryMb = memoryGb * 1024;
        double load = random.nextDouble() * 0.6;
        long usedCpu = (long) (cpuMillis * load);
        long usedMemory = (long) (memoryMb * load * (0.5 + random.nextDouble() / 2));
        int usedGpus = gpus == 0 ? 0 : random.nextInt(gpus / 2 + 1);
        MachineStatus status = MachineStatus.READY;
        Duration heartbeat = Duration.ofMillis(random.nextInt(10_000));
        int health = random.nextInt(200);
        if (health < 2) {
            status = MachineStatus.SUSPECT;
        } else if (health == 2) {
            status = MachineStatus.DRAINING;
        } else if (health == 3) {
            heartbeat = Duration.ofSeconds(45);
        }
        return new MachineView(new FleetMachine(String.format("%s-%05d", region, i), region, labels, gpuType,
                new Amounts(cpuMillis, memoryMb, gpus), new Amounts(usedCpu, usedMemory, usedGpus), status), heartbeat);
    }

    /**
     * A batch of jobs. {@code impossiblePerMille} of them ask for a label no machine carries, so they
     * exercise the full-scan explanation.
     */
    static List<PendingJob> batch(long seed, int size, int tenantCount, int impossiblePerMille) {
        Random random = new Random(seed);
        List<PendingJob> jobs = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            UUID tenant = tenant(random.nextInt(tenantCount));
            int priority = new int[] {100, 500, 500, 900}[random.nextInt(4)];
            long cpuMillis;
            long memoryMb;
            int gpus = 0;
            List<String> types = List.of();
            if (random.nextInt(100) < 80) {
                cpuMillis = new long[] {500, 1000, 2000, 4000, 8000}[random.nextInt(5)];
                memoryMb = 1024L * (1 + random.nextInt(32));
            } else {
                gpus = new int[] {1, 1, 1, 1, 2, 2, 4, 4, 8, 8}[random.nextInt(10)];
                int typing = random.nextInt(10);
                types = typing < 3 ? List.of("H100") : typing < 6 ? List.of("A100", "H100") : typing < 8 ? List.of("L4") : List.of();
                if (types.equals(List.of("L4"))) {
                    gpus = Math.min(gpus, 4);
                }
                cpuMillis = 4000L * gpus;
                memoryMb = 16_384L * gpus;
            }
            String region = random.nextInt(10) < 3 ? REGIONS[random.nextInt(REGIONS.length)] : null;
            Map<String, String> labels = new HashMap<>();
            if (random.nextInt(100) < 15) {
                labels.put("zone", ZONES[random.nextInt(ZONES.length)]);
            }
            if (random.nextInt(100) < 5) {
                labels.put("disk", "ssd");
            }
            if (random.nextInt(1000) < impossiblePerMille) {
                labels.put("generation", "next");
            }
            PlacementStrategy strategy = random.nextInt(10) == 0 ? PlacementStrategy.SPREAD : PlacementStrategy.BINPACK;
            jobs.add(new PendingJob(new UUID(seed, i), tenant, priority, cpuMillis, memoryMb, gpus, types, region, labels,
                    strategy, seed * size + i));
        }
        return jobs;
    }

    static UUID tenant(int n) {
        return new UUID(0x7e4a47, n);
    }
}
