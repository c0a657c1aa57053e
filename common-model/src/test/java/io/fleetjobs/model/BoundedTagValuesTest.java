package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BoundedTagValuesTest {
    @Test
    void theFirstDistinctValuesAreTheirOwnTagsAndTheRestAreOther() {
        BoundedTagValues queues = new BoundedTagValues(2);
        assertThat(queues.tag("default")).isEqualTo("default");
        assertThat(queues.tag("gpu")).isEqualTo("gpu");
        assertThat(queues.tag("default")).as("seen before: still its own").isEqualTo("default");
        assertThat(queues.tag("job-4711")).isEqualTo(BoundedTagValues.OTHER);
        assertThat(queues.tag("job-4712")).isEqualTo(BoundedTagValues.OTHER);
        assertThat(queues.tag("gpu")).isEqualTo("gpu");
        assertThat(queues.tag(null)).isEqualTo(BoundedTagValues.OTHER);
        assertThat(new BoundedTagValues(0).tag("default")).isEqualTo(BoundedTagValues.OTHER);
    }

    @Test
    void manyThreadsNeverAdmitMoreThanTheBound() {
        BoundedTagValues queues = new BoundedTagValues(BoundedTagValues.DEFAULT_MAX);
        Set<String> tags = ConcurrentHashMap.newKeySet();
        IntStream.range(0, 10_000).parallel().forEach(i -> tags.add(queues.tag("q-" + (i % 500))));
        Set<String> own = new HashSet<>(tags);
        own.remove(BoundedTagValues.OTHER);
        assertThat(own).hasSize(BoundedTagValues.DEFAULT_MAX);
        assertThat(tags).contains(BoundedTagValues.OTHER);
    }
}
