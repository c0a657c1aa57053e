package io.fleetjobs.store;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The database's clock, as every service stamps and judges time: a heartbeat written by the scheduler and the
 * silence the reconciler measures from it are on one clock, whatever the services' machines' clocks say. Read from
 * PostgreSQL ({@code clock_timestamp()}) every {@link #RESYNC} by a thread of its own and carried forward between
 * reads on this JVM's monotonic clock, so that a call costs no query and a step of this machine's wall clock moves
 * nothing. The error is half a query's round trip plus the monotonic clock's drift over a few seconds; the fencing
 * budget's clock-skew margin covers it. Until the database first answers, this machine's clock stands in.
 */
public final class DatabaseClock implements InstantSource, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DatabaseClock.class);
    static final Duration RESYNC = Duration.ofSeconds(10);

    private record Base(Instant at, long nanos) {
    }

    private final Supplier<Instant> database;
    private final LongSupplier monotonic;
    private volatile Base base;
    private volatile boolean closed;
    private Thread resync;

    /** The database's clock through {@code jdbc}; {@link #start()} keeps it in step. */
    public DatabaseClock(JdbcClient jdbc) {
        this(() -> jdbc.sql("select clock_timestamp()").query(Timestamp.class).single().toInstant(),
                System::nanoTime);
    }

    DatabaseClock(Supplier<Instant> database, LongSupplier monotonic) {
        this.database = database;
        this.monotonic = monotonic;
        this.base = new Base(Instant.now(), monotonic.getAsLong());
        sync();
    }

    /** Reads the database's clock once; false (and the old reading kept) when it cannot be reached. */
    boolean sync() {
        try {
            long before = monotonic.getAsLong();
            Instant at = database.get();
            long after = monotonic.getAsLong();
            base = new Base(at, before + (after - before) / 2); // read halfway through the round trip
            return true;
        } catch (RuntimeException e) {
            log.warn("cannot read the database's clock ({}); carrying the last reading forward", e.getMessage());
            return false;
        }
    }

    @Override
    public Instant instant() {
        Base b = base;
        return b.at().plusNanos(monotonic.getAsLong() - b.nanos());
    }

    public DatabaseClock start() {
        resync = Thread.ofPlatform().name("database-clock").daemon().start(() -> {
            while (!closed) {
                LockSupport.parkNanos(RESYNC.toNanos());
                if (!closed) {
                    sync();
                }
            }
        });
        return this;
    }

    @Override
    public void close() {
        closed = true;
        if (resync != null) {
            LockSupport.unpark(resync);
        }
    }
}
