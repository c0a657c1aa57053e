package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.FleetMachine;
import io.fleetjobs.model.MachineStatus;
import java.time.Duration;
import java.util.Map;

/** Test builder: {@code aMachine("m1").cores(16).memoryMb(65536).withGpus(8, "H100").build()}. */
final class Machines {
    static final Duration FRESH = Duration.ofSeconds(30);

    private Machines() {
    }

    static Builder aMachine(String id) {
        return new Builder(id);
    }

    static final class Builder {
        private final String id;
        private String region = "us-east-1";
        private Map<String, String> labels = Map.of();
        private String gpuType;
        private long cpuMillis = 16_000;
        private long memoryMb = 65_536;
        private int gpuCount;
        private long allocCpuMillis;
        private long allocMemoryMb;
        private int allocGpuCount;
        private MachineStatus status = MachineStatus.READY;
        private Duration heartbeatAge = Duration.ofSeconds(1);
        private int maxLiveAttempts = FleetMachine.UNLIMITED;
        private int attempts;

        private Builder(String id) {
            this.id = id;
        }

        Builder region(String region) {
            this.region = region;
            return this;
        }

        Builder labels(Map<String, String> labels) {
            this.labels = labels;
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

        Builder withGpus(int count, String type) {
            this.gpuCount = count;
            this.gpuType = type;
            return this;
        }

        /** Already allocated on the machine when the snapshot was taken. */
        Builder allocated(long cpuMillis, long memoryMb, int gpus) {
            this.allocCpuMillis = cpuMillis;
            this.allocMemoryMb = memoryMb;
            this.allocGpuCount = gpus;
            return this;
        }

        Builder status(MachineStatus status) {
            this.status = status;
            return this;
        }

        /** The most attempts it runs at once, and how many it runs now. */
        Builder attempts(int max, int running) {
            this.maxLiveAttempts = max;
            this.attempts = running;
            return this;
        }

        Builder heartbeatAge(Duration heartbeatAge) {
            this.heartbeatAge = heartbeatAge;
            return this;
        }

        MachineView build() {
            return new MachineView(new FleetMachine(id, region, labels, gpuType, new Amounts(cpuMillis, memoryMb, gpuCount),
                    new Amounts(allocCpuMillis, allocMemoryMb, allocGpuCount), status, maxLiveAttempts, attempts), heartbeatAge);
        }

        MachineState state() {
            return new MachineState(build());
        }
    }
}
