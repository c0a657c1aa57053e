package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The database's clock, carried forward on a monotonic clock between readings. */
class DatabaseClockTest {
    static final Instant DB_TIME = Instant.parse("2030-01-01T00:00:00Z");

    final AtomicLong nanos = new AtomicLong(5_000);
    final AtomicReference<Instant> database = new AtomicReference<>(DB_TIME);
    final AtomicReference<RuntimeException> failing = new AtomicReference<>();

    DatabaseClock clock() {
        return new DatabaseClock(() -> {
            if (failing.get() != null) {
                throw failing.get();
            }
            return database.get();
        }, nanos::get);
    }

    @Test
    void itIsTheDatabasesTimeCarriedForwardWhateverThisMachinesWallClockSays() {
        DatabaseClock clock = clock();
        assertThat(clock.instant()).isEqualTo(DB_TIME);
        nanos.addAndGet(Duration.ofSeconds(3).toNanos());
        assertThat(clock.instant()).isEqualTo(DB_TIME.plusSeconds(3));

        // read again: the database's clock moved on by 4 s meanwhile (its time is what counts, not ours)
        database.set(DB_TIME.plusSeconds(4));
        assertThat(clock.sync()).isTrue();
        assertThat(clock.instant()).isEqualTo(DB_TIME.plusSeconds(4));
    }

    @Test
    void aReadingThatFailsKeepsTheLastOne() {
        DatabaseClock clock = clock();
        failing.set(new IllegalStateException("connection refused"));
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(clock.sync()).isFalse();
        assertThat(clock.instant()).isEqualTo(DB_TIME.plusSeconds(2));
    }

    @Test
    void againstPostgresItReadsWhatNowSays() {
        try (StoreFixture db = new StoreFixture(2); DatabaseClock clock = new DatabaseClock(db.jdbc).start()) {
            Instant before = db.jdbc.sql("select clock_timestamp()").query(Timestamp.class).single().toInstant();
            Instant read = clock.instant();
            Instant after = db.jdbc.sql("select clock_timestamp()").query(Timestamp.class).single().toInstant();
            assertThat(read).isBetween(before.minusMillis(50), after.plusMillis(50));
        }
    }
}
