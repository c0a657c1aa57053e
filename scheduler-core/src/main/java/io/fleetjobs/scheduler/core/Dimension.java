package io.fleetjobs.scheduler.core;

import java.math.BigDecimal;

/**
 * A resource that jobs request and machines have: its amounts and how to say them. (Switches rather
 * than per-constant methods: the free-capacity checks run for every machine a search visits, and a
 * switch keeps those calls cheap.)
 */
enum Dimension {
    GPU, CPU, MEMORY;

    long request(PendingJob job) {
        return switch (this) {
            case GPU -> job.gpuCount();
            case CPU -> job.cpuMillis();
            case MEMORY -> job.memoryMb();
        };
    }

    long total(MachineView machine) {
        return switch (this) {
            case GPU -> machine.machine().capacity().gpus();
            case CPU -> machine.machine().capacity().cpuMillis();
            case MEMORY -> machine.machine().capacity().memoryMb();
        };
    }

    long free(MachineState machine) {
        return switch (this) {
            case GPU -> machine.freeGpus();
            case CPU -> machine.freeCpuMillis();
            case MEMORY -> machine.freeMemoryMb();
        };
    }

    /** What a machine that lacks free capacity for the request has, as in "3 have ...". */
    String shortOfFree(long request) {
        return switch (this) {
            case GPU -> request == 1 ? "no free GPU" : "fewer than " + request + " free GPUs";
            case CPU -> "less than " + cores(request, "free ");
            case MEMORY -> "less than " + request + " MB free memory";
        };
    }

    /** What a machine too small for the request has, as in "3 have ...". */
    String shortOfTotal(long request) {
        return switch (this) {
            case GPU -> "fewer than " + request + " GPUs in total";
            case CPU -> "less than " + cores(request, "") + " in total";
            case MEMORY -> "less than " + request + " MB memory in total";
        };
    }

    /** An amount of this resource in words: "4 GPUs", "2.5 cores", "1024 MB memory". */
    String amount(long amount) {
        return switch (this) {
            case GPU -> amount + (amount == 1 ? " GPU" : " GPUs");
            case CPU -> cores(amount, "");
            case MEMORY -> amount + " MB memory";
        };
    }

    /** An amount of this resource as a bare number in its unit of speech: 2500 millicores is "2.5". */
    String number(long amount) {
        return this == CPU ? BigDecimal.valueOf(amount, 3).stripTrailingZeros().toPlainString() : Long.toString(amount);
    }

    /** Millicores in cores: 2500 is "2.5 cores", 1000 is "1 core"; {@code adjective} goes before the noun. */
    static String cores(long millis, String adjective) {
        return CPU.number(millis) + " " + adjective + (millis == 1000 ? "core" : "cores");
    }
}
