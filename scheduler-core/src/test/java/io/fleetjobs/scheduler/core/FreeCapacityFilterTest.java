package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FreeCapacityFilterTest {

    @ParameterizedTest(name = "{0}: request {1}, total {2}, allocated {3}: {4}")
    @CsvSource({
            "CPU,    4000, 16000, 12000, true",
            "CPU,    4001, 16000, 12000, false",
            "CPU,    1,    16000, 16000, false",
            "MEMORY, 2048, 8192,  6144,  true",
            "MEMORY, 2049, 8192,  6144,  false",
            "GPU,    2,    8,     6,     true",
            "GPU,    3,    8,     6,     false",
            "GPU,    0,    0,     0,     true",
            "GPU,    1,    0,     0,     false"})
    void comparesTheRequestWithWhatIsFree(Dimension dimension, long request, long total, long allocated,
                                          boolean accepts) {
        PendingJob job = switch (dimension) {
            case CPU -> aJob().cpuMillis(request).build();
            case MEMORY -> aJob().memoryMb(request).build();
            case GPU -> aJob().gpus((int) request).build();
        };
        Machines.Builder machine = aMachine("m1").cpuMillis(64_000).memoryMb(1 << 20).withGpus(16, "H100");
        machine = switch (dimension) {
            case CPU -> machine.cpuMillis(total).allocated(allocated, 0, 0);
            case MEMORY -> machine.memoryMb(total).allocated(0, allocated, 0);
            case GPU -> machine.withGpus((int) total, "H100").allocated(0, 0, (int) allocated);
        };
        assertThat(new FreeCapacityFilter(dimension).accepts(job, machine.state())).isEqualTo(accepts);
        assertThat(new FreeCapacityFilter(dimension).permanent()).isFalse();
    }

    @Test
    void countsWhatEarlierPlacementsOfThePlanTook() {
        MachineState machine = aMachine("m1").cores(8).memoryMb(8192).withGpus(4, "H100").state();
        PendingJob job = aJob().cores(3).memoryMb(3000).gpus(2).build();
        FreeCapacityFilter gpus = new FreeCapacityFilter(Dimension.GPU);
        FreeCapacityFilter cpu = new FreeCapacityFilter(Dimension.CPU);

        machine.take(job);
        assertThat(gpus.accepts(job, machine)).isTrue();
        assertThat(cpu.accepts(job, machine)).isTrue();
        machine.take(job);
        assertThat(gpus.accepts(job, machine)).isFalse();
        assertThat(cpu.accepts(job, machine)).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "GPU;    4;     3; 3 have fewer than 4 free GPUs",
            "GPU;    1;     2; 2 have no free GPU",
            "CPU;    2500;  1; 1 has less than 2.5 free cores",
            "CPU;    1000;  4; 4 have less than 1 free core",
            "CPU;    250;   4; 4 have less than 0.25 free cores",
            "MEMORY; 16384; 5; 5 have less than 16384 MB free memory"})
    void explainsInWords(Dimension dimension, long request, int machines, String expected) {
        PendingJob job = switch (dimension) {
            case CPU -> aJob().cpuMillis(request).build();
            case MEMORY -> aJob().memoryMb(request).build();
            case GPU -> aJob().gpus((int) request).build();
        };
        assertThat(new FreeCapacityFilter(dimension).explain(job, machines)).isEqualTo(expected);
    }
}
