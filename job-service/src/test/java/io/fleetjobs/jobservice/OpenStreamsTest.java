package io.fleetjobs.jobservice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class OpenStreamsTest {
    @Test
    void eachTenantHoldsAtMostItsPlacesAndGetsThemBack() {
        OpenStreams streams = new OpenStreams(2);
        UUID alice = new UUID(0, 1);
        UUID bob = new UUID(0, 2);
        assertThat(streams.tryOpen(alice)).isTrue();
        assertThat(streams.tryOpen(alice)).isTrue();
        assertThat(streams.tryOpen(alice)).as("a third of alice's").isFalse();
        assertThat(streams.tryOpen(bob)).as("another tenant's own places").isTrue();
        streams.close(alice);
        assertThat(streams.tryOpen(alice)).isTrue();
        assertThat(streams.tryOpen(alice)).as("a refusal took nothing, a close gave one back").isFalse();
        assertThatThrownBy(() -> new OpenStreams(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
