package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.JobState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The kind of a deferral is a column: written with its reason, read by the wake-up, gone with the next change. */
class UnplacedKindTest {
    private static StoreFixture f;
    private static PlacementStore placement;

    @BeforeAll
    static void start() {
        f = new StoreFixture(2);
        placement = new PlacementStore(f.jdbc, f.jobs);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static JobRecord queued(String name) {
        return f.jobs.transition(f.submitted(name), Transition.admit()).orElseThrow();
    }

    private static String kindOf(UUID job) {
        return f.jdbc.sql("select unplaced_kind from jobs where id = :id").param("id", job).query(String.class).list().get(0);
    }

    private static void defer(JobRecord job, PlacementStore.UnplacedKind kind, String reason, Instant notBefore) {
        f.jobs.inTransaction(() -> placement.commit(List.of(),
                List.of(new PlacementStore.Deferral(job.id(), kind, reason, notBefore)), Duration.ofSeconds(30)));
    }

    @Test
    void onlyJobsThatFitNowhereAreWokenWhateverTheirReasonSays() {
        Instant later = Instant.now().plus(Duration.ofHours(1));
        JobRecord nowhere = queued("nowhere");
        JobRecord quota = queued("quota");
        defer(nowhere, PlacementStore.UnplacedKind.CAN_NEVER_FIT, "a sentence that says nothing of machines", later);
        defer(quota, PlacementStore.UnplacedKind.OVER_QUOTA, "0 of 3 machines fit (as if)", later);

        assertThat(kindOf(nowhere.id())).isEqualTo("CAN_NEVER_FIT");
        assertThat(placement.wakeUnplaceable(10)).isEqualTo(1);
        assertThat(f.jobs.get(nowhere.id()).orElseThrow().notBefore()).isBefore(later);
        assertThat(f.jobs.get(quota.id()).orElseThrow().notBefore()).isAfterOrEqualTo(later.minusMillis(1));
    }

    @Test
    void aReasonThatDiffersOnlyInItsCountsIsNotWrittenAgain() {
        JobRecord job = queued("no-room");
        var noRoom = PlacementStore.UnplacedKind.DOES_NOT_FIT_NOW;
        String first = "0 of 100 machines fit: 97 have too little free CPU, 3 are not READY";
        defer(job, noRoom, first, null);
        String written = rowVersion(job.id());

        defer(job, noRoom, "0 of 100 machines fit: 95 have too little free CPU, 5 are not READY", null);
        assertThat(rowVersion(job.id())).as("the same filters, other counts: the row is not written").isEqualTo(written);
        assertThat(f.jobs.get(job.id()).orElseThrow().stateReason()).isEqualTo(first);

        String other = "0 of 100 machines fit: 100 have too little free memory";
        defer(job, noRoom, other, null);
        assertThat(f.jobs.get(job.id()).orElseThrow().stateReason()).as("another filter holds it").isEqualTo(other);
        defer(job, PlacementStore.UnplacedKind.OVER_QUOTA, other, null);
        assertThat(kindOf(job.id())).as("another kind").isEqualTo("OVER_QUOTA");
    }

    /** Changes with every write of the row, whatever it writes. */
    private static String rowVersion(UUID job) {
        return f.jdbc.sql("select xmin::text from jobs where id = :id").param("id", job).query(String.class).single();
    }

    @Test
    void aChangeThroughTheDoorClearsTheKind() {
        JobRecord job = queued("canceled");
        defer(job, PlacementStore.UnplacedKind.DOES_NOT_FIT_NOW, "0 of 1 machine fits: 1 has too little free CPU", null);
        assertThat(kindOf(job.id())).isEqualTo("DOES_NOT_FIT_NOW");

        f.jobs.transition(f.jobs.get(job.id()).orElseThrow(), Transition.cancel("by the test")).orElseThrow();
        assertThat(kindOf(job.id())).isNull();
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.CANCELED);
    }
}
