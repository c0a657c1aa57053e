package io.fleetjobs.store;

import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What each consumer has applied. Call {@link #firstTime} in the transaction of the effect: when
 * it says false, the event was applied before (a redelivery) and the effect must be skipped; when
 * the transaction rolls back, the mark goes with it and the event will be applied again.
 */
public final class Inbox {
    private final JdbcClient jdbc;
    private final InstantSource clock;

    public Inbox(JdbcClient jdbc, InstantSource clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    public boolean firstTime(String consumer, UUID eventId) {
        return jdbc.sql("""
                        insert into processed_events (consumer, event_id, processed_at) values (:c, :e, :now)
                        on conflict do nothing""")
                .param("c", consumer)
                .param("e", eventId)
                .param("now", OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC))
                .update() == 1;
    }
}
