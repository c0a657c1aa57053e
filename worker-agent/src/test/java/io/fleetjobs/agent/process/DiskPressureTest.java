package io.fleetjobs.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which attempt ends when the working directories' disk falls below its reserve: the one holding the most. */
class DiskPressureTest {
    @TempDir
    Path dir;

    private static AttemptKey key() {
        return new AttemptKey(UUID.randomUUID(), 1);
    }

    @Test
    void belowTheReserveOnlyTheLargestEndsThenTheNextAndOneHoldingUnderAMebibyteNever() {
        DiskPressure full = new DiskPressure(Long.MAX_VALUE / 4);
        AttemptKey big = key();
        AttemptKey small = key();
        AttemptKey none = key();

        assertThat(full.measured(none, 1000, dir)).isEmpty();
        assertThat(full.measured(big, 5L << 20, dir)).get().asString().contains("holds the most: 5 MiB");
        assertThat(full.measured(small, 2L << 20, dir)).as("the big one still holds more").isEmpty();
        full.forget(big);
        assertThat(full.measured(small, 2L << 20, dir)).isPresent();
        full.forget(small);
        assertThat(full.measured(none, 1000, dir)).isEmpty();
    }

    @Test
    void belowTheReserveWhatEndedAttemptsLeftIsReclaimedBeforeARunningOneEnds() {
        AtomicInteger reclaimed = new AtomicInteger();
        DiskPressure full = new DiskPressure(Long.MAX_VALUE / 4, reclaimed::incrementAndGet);

        assertThat(full.measured(key(), 1000, dir)).as("too small to end").isEmpty();
        assertThat(reclaimed).hasValue(0);
        assertThat(full.measured(key(), 5L << 20, dir)).isPresent();
        assertThat(reclaimed).as("reclaimed first; still short, so the attempt ends").hasValue(1);
        assertThat(new DiskPressure(0, reclaimed::incrementAndGet).measured(key(), 5L << 20, dir)).isEmpty();
        assertThat(reclaimed).as("nothing reclaimed above the reserve").hasValue(1);
    }

    @Test
    void aboveTheReserveNothingEnds() {
        assertThat(new DiskPressure(0).measured(key(), 50L << 30, dir)).isEmpty();
    }

    @Test
    void theDefaultReserveIsFivePerCentAndAtLeastAGibibyte() {
        assertThat(DiskPressure.reserve(100L << 30, -1)).isEqualTo(5L << 30);
        assertThat(DiskPressure.reserve(4L << 30, -1)).isEqualTo(1L << 30);
        assertThat(DiskPressure.reserve(100L << 30, 7)).isEqualTo(7);
    }
}
