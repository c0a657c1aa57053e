package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TotalCapacityFilterTest {

    @ParameterizedTest(name = "{0}: request {1}, total {2}, all allocated: {3}")
    @CsvSource({
            "CPU,    4000,  8000,  true",
            "CPU,    8000,  8000,  true",
            "CPU,    8001,  8000,  false",
            "MEMORY, 1024,  2048,  true",
            "MEMORY, 4096,  2048,  false",
            "GPU,    4,     8,     true",
            "GPU,    8,     8,     true",
            "GPU,    9,     8,     false",
            "GPU,    0,     0,     true"})
    void comparesTheRequestWithAllTheMachineHasUsedOrNot(Dimension dimension, long request, long total,
                                                          boolean accepts) {
        PendingJob job = job(dimension, request);
        // fully allocated: the filter looks at total capacity only
        MachineState machine = machine(dimension, total).state();
        assertThat(new TotalCapacityFilter(dimension).accepts(job, machine)).isEqualTo(accepts);
        assertThat(new TotalCapacityFilter(dimension).permanent()).isTrue();
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "GPU;    4;     3; 3 have fewer than 4 GPUs in total",
            "CPU;    2500;  1; 1 has less than 2.5 cores in total",
            "CPU;    1000;  2; 2 have less than 1 core in total",
            "MEMORY; 16384; 5; 5 have less than 16384 MB memory in total"})
    void explainsInWords(Dimension dimension, long request, int machines, String expected) {
        assertThat(new TotalCapacityFilter(dimension).explain(job(dimension, request), machines)).isEqualTo(expected);
    }

    private static PendingJob job(Dimension dimension, long request) {
        return switch (dimension) {
            case CPU -> aJob().cpuMillis(request).build();
            case MEMORY -> aJob().memoryMb(request).build();
            case GPU -> aJob().gpus((int) request).build();
        };
    }

    private static Machines.Builder machine(Dimension dimension, long total) {
        Machines.Builder machine = aMachine("m1").cpuMillis(64_000).memoryMb(1 << 20).withGpus(16, "H100");
        return switch (dimension) {
            case CPU -> machine.cpuMillis(total).allocated(total, 0, 0);
            case MEMORY -> machine.memoryMb(total).allocated(0, total, 0);
            case GPU -> machine.withGpus((int) total, "H100").allocated(0, 0, (int) total);
        };
    }
}
