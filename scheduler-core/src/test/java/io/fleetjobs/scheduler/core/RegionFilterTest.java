package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RegionFilterTest {
    private final RegionFilter filter = new RegionFilter();

    @ParameterizedTest(name = "job region {0}, machine region {1}: {2}")
    @CsvSource(nullValues = "any", value = {
            "us-east-1, us-east-1, true",
            "us-east-1, eu-west-1, false",
            "eu-west-1, us-east-1, false",
            "any,       eu-west-1, true",
            "any,       us-east-1, true"})
    void acceptsOnlyTheJobsRegionWhenItNamesOne(String jobRegion, String machineRegion, boolean accepts) {
        PendingJob job = aJob().region(jobRegion).build();
        assertThat(filter.accepts(job, aMachine("m1").region(machineRegion).state())).isEqualTo(accepts);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "1 | 1 is outside region us-east-1",
            "28 | 28 are outside region us-east-1"})
    void explainsInWords(int machines, String expected) {
        assertThat(filter.explain(aJob().region("us-east-1").build(), machines)).isEqualTo(expected);
    }
}
