package io.fleetjobs.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QueuePositionTest {

    @ParameterizedTest(name = "{0} {1} before {2} {3}: {4}")
    @CsvSource({
            // priority, id, priority, id, first goes first
            "500, 018f0000-0000-7000-8000-000000000000, 500, 018f0000-0000-7000-b000-000000000000, true",  // unsigned, as PostgreSQL
            "500, 018f0000-0000-7000-b000-000000000000, 500, 018f0000-0000-7000-8000-000000000000, false",
            "500, 018f0000-0000-7000-8000-000000000001, 500, 018f0000-0000-7000-8000-000000000002, true",  // low halves decide ties
            "500, 0f000000-0000-7000-8000-000000000000, 500, f0000000-0000-7000-8000-000000000000, true",  // high half first, unsigned
            "900, 018f0000-0000-7000-b000-000000000000, 500, 018f0000-0000-7000-8000-000000000000, true",  // higher priority first
            "100, 018f0000-0000-7000-8000-000000000000, 500, 018f0000-0000-7000-b000-000000000000, false"})
    void ordersByPriorityThenIdAsTheClaimIndex(int p1, UUID id1, int p2, UUID id2, boolean firstGoesFirst) {
        int order = new QueuePosition(p1, id1).compareTo(new QueuePosition(p2, id2));
        assertThat(order < 0).isEqualTo(firstGoesFirst);
        assertThat(new QueuePosition(p2, id2).compareTo(new QueuePosition(p1, id1)) < 0).isEqualTo(!firstGoesFirst);
    }

    @ParameterizedTest(name = "{0} {1} {2} before {3} {4} {5}: {6}")
    @CsvSource({
            // work the platform lost goes ahead of its priority, not ahead of a higher one
            "500, true, f0000000-0000-7000-8000-000000000000, 500, false, 0f000000-0000-7000-8000-000000000000, true",
            "500, false, 0f000000-0000-7000-8000-000000000000, 500, true, f0000000-0000-7000-8000-000000000000, false",
            "500, true, f0000000-0000-7000-8000-000000000000, 900, false, 0f000000-0000-7000-8000-000000000000, false",
            "500, true, 0f000000-0000-7000-8000-000000000000, 500, true, f0000000-0000-7000-8000-000000000000, true"})
    void requeuedAheadComesBeforeItsPriorityAsTheClaimIndex(int p1, boolean a1, UUID id1, int p2, boolean a2, UUID id2,
            boolean firstGoesFirst) {
        int order = new QueuePosition(p1, a1, id1).compareTo(new QueuePosition(p2, a2, id2));
        assertThat(order < 0).isEqualTo(firstGoesFirst);
        assertThat(new QueuePosition(p2, a2, id2).compareTo(new QueuePosition(p1, a1, id1)) < 0).isEqualTo(!firstGoesFirst);
    }
}
