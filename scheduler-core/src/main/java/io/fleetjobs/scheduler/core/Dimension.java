package io.fleetjobs.scheduler.core;

import java.math.BigDecimal;

/** A resource that jobs request and machines have: its amounts and how to say them. */
enum Dimension {
    GPU {
        @Override
        long request(PendingJob job) {
            return job.gpuCount();
        }

        @Override
        long total(MachineView machine) {
            return machine.gpuCount();
        }

        @Override
        long free(MachineState machine) {
            return machine.freeGpus();
        }

        @Override
        String shortOfFree(long request) {
            return request == 1 ? "no free GPU" : "fewer than " + request + " free GPUs";
        }

        @Override
        String shortOfTotal(long request) {
            return "fewer than " + request + " GPUs in total";
        }

        @Override
        String amount(long amount) {
            return amount + (amount == 1 ? " GPU" : " GPUs");
        }

        @Override
        String number(long amount) {
            return Long.toString(amount);
        }
    },
    CPU {
        @Override
        long request(PendingJob job) {
            return job.cpuMillis();
        }

        @Override
        long total(MachineView machine) {
            return machine.cpuMillis();
        }

        @Override
        long free(MachineState machine) {
            return machine.freeCpuMillis();
        }

        @Override
        String shortOfFree(long request) {
            return "less than " + cores(request, "free ");
        }

        @Override
        String shortOfTotal(long request) {
            return "less than " + cores(request, "") + " in total";
        }

        @Override
        String amount(long amount) {
            return cores(amount, "");
        }

        @Override
        String number(long amount) {
            return BigDecimal.valueOf(amount, 3).stripTrailingZeros().toPlainString();
        }
    },
    MEMORY {
        @Override
        long request(PendingJob job) {
            return job.memoryMb();
        }

        @Override
        long total(MachineView machine) {
            return machine.memoryMb();
        }

        @Override
        long free(MachineState machine) {
            return machine.freeMemoryMb();
        }

        @Override
        String shortOfFree(long request) {
            return "less than " + request + " MB free memory";
        }

        @Override
        String shortOfTotal(long request) {
            return "less than " + request + " MB memory in total";
        }

        @Override
        String amount(long amount) {
            return amount + " MB memory";
        }

        @Override
        String number(long amount) {
            return Long.toString(amount);
        }
    };

    abstract long request(PendingJob job);

    abstract long total(MachineView machine);

    abstract long free(MachineState machine);

    /** What a machine that lacks free capacity for the request has, as in "3 have ...". */
    abstract String shortOfFree(long request);

    /** What a machine too small for the request has, as in "3 have ...". */
    abstract String shortOfTotal(long request);

    /** An amount of this resource in words: "4 GPUs", "2.5 cores", "1024 MB memory". */
    abstract String amount(long amount);

    /** An amount of this resource as a bare number in its unit of speech: 2500 millicores is "2.5". */
    abstract String number(long amount);

    /** Millicores in cores: 2500 is "2.5 cores", 1000 is "1 core"; {@code adjective} goes before the noun. */
    static String cores(long millis, String adjective) {
        String number = CPU.number(millis);
        return number + " " + adjective + (millis == 1000 ? "core" : "cores");
    }
}
