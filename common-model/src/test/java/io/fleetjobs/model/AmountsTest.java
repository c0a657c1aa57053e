package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AmountsTest {
    @ParameterizedTest(name = "{0}m/{1}MiB/{2}gpu in {3}m/{4}MiB/{5}gpu: {6}")
    @CsvSource({
            // ask            room               fits
            "1000, 512, 0,    2000, 1024, 0,    true",
            "2000, 1024, 1,   2000, 1024, 1,    true",   // exactly full
            "2001, 512, 0,    2000, 1024, 0,    false",  // one millicore over
            "1000, 1025, 0,   2000, 1024, 0,    false",
            "1000, 512, 1,    2000, 1024, 0,    false",  // a GPU where there is none
            "0, 0, 0,         -1, 0, 0,         false",  // nothing fits in an over-committed room
    })
    void fitsInComparesEveryDimension(long cpu, long mem, int gpus, long roomCpu, long roomMem, int roomGpus, boolean fits) {
        assertThat(new Amounts(cpu, mem, gpus).fitsIn(new Amounts(roomCpu, roomMem, roomGpus))).isEqualTo(fits);
    }

    @ParameterizedTest(name = "{0} + {1} - {1} = {0}")
    @CsvSource({"1000;512;1, 250;128;2", "0;0;0, 0;0;0", "-5;10;0, 7;-3;4"})
    void plusAndMinusAreInverse(String a, String b) {
        Amounts x = parse(a);
        Amounts y = parse(b);
        assertThat(x.plus(y).minus(y)).isEqualTo(x);
        assertThat(x.minus(x).isZero()).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"0.5, 256, 0, 500, 256, 0", "2, 4096, 4, 2000, 4096, 4"})
    void ofAJobsResources(double cpu, long mem, int gpus, long cpuMillis, long memoryMb, int gpuCount) {
        assertThat(Amounts.of(Resources.of(cpu, mem).withGpus(gpus, null))).isEqualTo(new Amounts(cpuMillis, memoryMb, gpuCount));
    }

    private static Amounts parse(String s) {
        String[] p = s.split(";");
        return new Amounts(Long.parseLong(p[0]), Long.parseLong(p[1]), Integer.parseInt(p[2]));
    }
}
