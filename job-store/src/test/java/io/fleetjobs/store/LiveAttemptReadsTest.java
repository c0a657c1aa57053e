package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.FailureReason;
import java.time.Instant;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reads of live attempts that run at every heartbeat and every sweep can be served by the small
 * partial index of held attempts ({@code attempts_held_by_machine}, {@code released_at is null}),
 * not only by reading the whole table, which grows by an attempt per job run: a W1 profile found the
 * heartbeat's read of a machine's attempts the largest CPU consumer of PostgreSQL, scanning every
 * attempt ever made, because {@code state in ('SCHEDULED', 'RUNNING')} alone does not let the
 * planner use the index (a live attempt always has {@code released_at is null}: a check says so).
 */
class LiveAttemptReadsTest {
    private static StoreFixture f;
    private static MachineStore machines;
    private static AttemptReports reports;
    private static RepairStore repair;

    @BeforeAll
    static void start() {
        f = new StoreFixture(2);
        machines = new MachineStore(f.jdbc, f.jobs.clock());
        reports = new AttemptReports(f.jdbc, f.jobs, new Random(1));
        repair = new RepairStore(f.jdbc);
        machines.register("m", "eu", Map.of(), null, 64_000, 65_536, 0);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    /** Scans of the held-attempts index made by {@code read}, run with sequential scans off (few rows make any plan cheap). */
    private static long heldIndexScans(Supplier<?> read) {
        return f.jobs.inTransaction(() -> {
            f.jdbc.sql("set local enable_seqscan = off").update();
            long before = scans();
            read.get();
            return scans() - before;
        });
    }

    private static long scans() {
        return f.jdbc.sql("select pg_stat_get_xact_numscans('attempts_held_by_machine'::regclass)")
                .query(Long.class).single();
    }

    @Test
    void theHeartbeatsReadOfAMachinesAttempts() {
        assertThat(heldIndexScans(() -> machines.liveAttempts("m"))).isPositive();
    }

    @Test
    void endingAMachinesAttempts() {
        assertThat(heldIndexScans(() -> reports.endLiveAttempts("m", FailureReason.MACHINE_LOST))).isPositive();
    }

    @Test
    void theSweepOfExpiredLeases() {
        assertThat(heldIndexScans(() -> repair.expiredLeases(Instant.now()))).isPositive();
    }
}
