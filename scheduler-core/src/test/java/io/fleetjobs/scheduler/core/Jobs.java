package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.PlacementStrategy;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Test builder: {@code aJob().cores(2).memoryMb(4096).gpus(4, "H100").build()}. Ids are made from numbers. */
final class Jobs {
    static final UUID TENANT_A = tenant(1);
    static final UUID TENANT_B = tenant(2);
    static final UUID TENANT_C = tenant(3);

    private static long nextId = 1;

    private Jobs() {
    }

    static UUID jobId(long n) {
        return new UUID(0x10b, n);
    }

    static UUID tenant(long n) {
        return new UUID(0x7e4a47, n);
    }

    /** The same job as a gang of {@code replicas}, together where {@code scope} says (null: anywhere); not due. */
    static PendingJob asGang(PendingJob j, int replicas, String scope) {
        return new PendingJob(j.jobId(), j.tenantId(), j.priority(), j.cpuMillis(), j.memoryMb(), j.gpuCount(), j.gpuTypes(),
                j.region(), j.labels(), j.strategy(), j.order(), j.requireIsolation(), replicas, scope);
    }

    static Builder aJob() {
        return new Builder();
    }

    static final class Builder {
        private UUID jobId;
        private UUID tenantId = TENANT_A;
        private int priority = 500;
        private long cpuMillis = 1000;
        private long memoryMb = 1024;
        private int gpuCount;
        private List<String> gpuTypes = List.of();
        private String region;
        private Map<String, String> labels = Map.of();
        private PlacementStrategy strategy = PlacementStrategy.BINPACK;
        private Long order;

        Builder id(long n) {
            this.jobId = jobId(n);
            return this;
        }

        Builder tenant(UUID tenantId) {
            this.tenantId = tenantId;
            return this;
        }

        Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        Builder cores(double cores) {
            this.cpuMillis = Math.round(cores * 1000);
            return this;
        }

        Builder cpuMillis(long cpuMillis) {
            this.cpuMillis = cpuMillis;
            return this;
        }

        Builder memoryMb(long memoryMb) {
            this.memoryMb = memoryMb;
            return this;
        }

        Builder gpus(int count, String... types) {
            this.gpuCount = count;
            this.gpuTypes = Arrays.asList(types);
            return this;
        }

        Builder gpuTypes(String... types) {
            this.gpuTypes = Arrays.asList(types);
            return this;
        }

        Builder region(String region) {
            this.region = region;
            return this;
        }

        Builder labels(Map<String, String> labels) {
            this.labels = labels;
            return this;
        }

        Builder strategy(PlacementStrategy strategy) {
            this.strategy = strategy;
            return this;
        }

        Builder order(long order) {
            this.order = order;
            return this;
        }

        PendingJob build() {
            long n;
            synchronized (Jobs.class) {
                n = nextId++;
            }
            UUID id = jobId != null ? jobId : jobId(1_000_000 + n);
            long age = order != null ? order : n;
            return new PendingJob(id, tenantId, priority, cpuMillis, memoryMb, gpuCount, gpuTypes, region, labels,
                    strategy, age);
        }
    }
}
