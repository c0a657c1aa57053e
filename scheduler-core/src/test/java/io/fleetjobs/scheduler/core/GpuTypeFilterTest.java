package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GpuTypeFilterTest {
    private final GpuTypeFilter filter = new GpuTypeFilter();

    @ParameterizedTest(name = "job {0} GPUs of [{1}] on machine with {3} {2}: {4}")
    @CsvSource(nullValues = "-", value = {
            // job GPUs, job types, machine type, machine GPUs, accepts
            "0, -,         -,    0, true",   // a CPU job naming no type goes anywhere
            "0, -,         H100, 8, true",
            "2, -,         -,    0, false",  // a GPU job needs a machine with GPUs
            "2, -,         L4,   4, true",   // naming no type, any type will do
            "2, H100,      H100, 8, true",
            "2, H100,      A100, 8, false",
            "2, A100|H100, A100, 8, true",   // alternatives: either
            "2, A100|H100, H100, 8, true",
            "2, A100|H100, L4,   4, false",
            "2, H100,      -,    0, false",
            "0, H100,      H100, 8, true",   // a type named is a constraint even for a CPU job
            "0, H100,      -,    0, false"})
    void acceptsTheNamedTypesOrAnyGpuMachine(int jobGpus, String types, String machineType, int machineGpus,
                                              boolean accepts) {
        PendingJob job = aJob().gpus(jobGpus, types == null ? new String[0] : types.split("\\|")).build();
        MachineState machine = aMachine("m1").withGpus(machineGpus, machineType).state();
        assertThat(filter.accepts(job, machine)).isEqualTo(accepts);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "H100;      9; 9 lack GPU type H100",
            "H100;      1; 1 lacks GPU type H100",
            "A100|H100; 3; 3 lack GPU type A100 or H100",
            "'';        2; 2 have no GPUs",
            "'';        1; 1 has no GPUs"})
    void explainsInWords(String types, int machines, String expected) {
        PendingJob job = aJob().gpus(4, types.isEmpty() ? new String[0] : types.split("\\|")).build();
        assertThat(filter.explain(job, machines)).isEqualTo(expected);
    }
}
