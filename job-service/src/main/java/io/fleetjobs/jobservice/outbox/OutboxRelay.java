package io.fleetjobs.jobservice.outbox;

import io.fleetjobs.store.Outbox;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Publishes outbox rows to Kafka, at least once, in order per key.
 *
 * <p>Rows are sharded by key. For each shard a relay takes a transaction-scoped advisory lock (a
 * shard has one publisher at a time, whatever the number of relays; another relay skips it), reads
 * the oldest rows, sends them with the idempotent producer, waits for the acknowledgements, and
 * deletes them in the same transaction. A crash or a broker error rolls the deletes back: the rows go
 * again later, and consumers dedupe. The advisory lock is what keeps two relays off one shard, so the
 * rows are read without row locks (each would be a WAL record).
 *
 * <p>A published row is deleted rather than marked: the outbox holds only what Kafka has not yet
 * acknowledged, so it stays small whatever the history, and a mark (a new version of the row with its
 * whole payload, plus its index entries) would write twice what the delete does. The job's history
 * ({@code job_history}) is the lasting record of its changes, not the outbox.
 *
 * <p>While the broker is down, the circuit breaker opens: the relay stops trying for a while
 * instead of blocking on every batch, rows wait in Postgres, and everything drains when it returns.
 */
@Component
public class OutboxRelay implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
    /** First key of the advisory locks of the relay's shards ("OUTB"). */
    private static final int LOCK_SPACE = 0x4F555442;

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final KafkaTemplate<String, String> kafka;
    private final CircuitBreaker breaker;
    private final OutboxSignal signal;
    private final InstantSource clock;
    private final RelayProperties properties;
    private final AtomicLong backlog = new AtomicLong();
    private final AtomicLong lagMillis = new AtomicLong();
    private volatile Thread worker;
    private volatile boolean running;
    private Instant nextStats = Instant.MIN;
    private final Counter publishedRows;
    private final Counter failures;

    public OutboxRelay(JdbcClient jdbc, PlatformTransactionManager transactions, KafkaTemplate<String, String> kafka,
            CircuitBreakerRegistry breakers, OutboxSignal signal, InstantSource clock, RelayProperties properties,
            MeterRegistry meters) {
        this.jdbc = jdbc;
        this.tx = new TransactionTemplate(transactions);
        this.kafka = kafka;
        this.breaker = breakers.circuitBreaker("kafka");
        this.signal = signal;
        this.clock = clock;
        this.properties = properties;
        Gauge.builder("outbox.backlog", backlog, AtomicLong::get)
                .description("outbox rows not yet published").register(meters);
        Gauge.builder("outbox.lag.seconds", lagMillis, l -> l.get() / 1000.0)
                .description("age of the oldest unpublished outbox row").register(meters);
        this.publishedRows = Counter.builder("outbox.published").description("outbox rows published (and deleted)")
                .register(meters);
        this.failures = Counter.builder("outbox.publish.failures")
                .description("batches whose publishing failed (rolled back, published again later)").register(meters);
    }

    /** Publishes what is waiting, every shard once. @return rows published */
    public int drainOnce() {
        int published = 0;
        for (int shard = 0; shard < Outbox.SHARDS; shard++) {
            int s = shard;
            Integer n = tx.execute(status -> publishShard(s));
            published += n == null ? 0 : n;
            publishedRows.increment(n == null ? 0 : n); // committed: the rows are marked published
        }
        return published;
    }

    private int publishShard(int shard) {
        Boolean mine = jdbc.sql("select pg_try_advisory_xact_lock(:space, :shard)")
                .param("space", LOCK_SPACE).param("shard", shard).query(Boolean.class).single();
        if (!mine) {
            return 0;
        }
        List<Row> rows = jdbc.sql("""
                        select id, topic, key, payload from outbox
                        where shard = :shard and published_at is null
                        order by id limit :limit""")
                .param("shard", shard).param("limit", properties.batchSize())
                .query((rs, n) -> new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4)))
                .list();
        if (rows.isEmpty()) {
            return 0;
        }
        breaker.executeRunnable(() -> send(rows));
        jdbc.sql("delete from outbox where id = any(:ids)")
                .param("ids", rows.stream().map(Row::id).toArray(Long[]::new))
                .update();
        return rows.size();
    }

    private void send(List<Row> rows) {
        List<CompletableFuture<?>> acks = new ArrayList<>(rows.size());
        for (Row row : rows) {
            CompletableFuture<?> ack = kafka.send(row.topic(), row.key(), row.payload());
            acks.add(ack);
            if (ack.isCompletedExceptionally()) {
                break; // the broker is unreachable (metadata timed out): the rest would wait as long each
            }
        }
        try {
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new))
                    .get(properties.sendTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing", e);
        } catch (Exception e) {
            throw new IllegalStateException("publishing " + rows.size() + " outbox rows failed: " + e.getMessage(), e);
        }
    }

    /** Refreshes the backlog and lag gauges. */
    public void refreshStats() {
        jdbc.sql("select count(*), min(created_at) from outbox where published_at is null")
                .query(rs -> {
                    backlog.set(rs.getLong(1));
                    var oldest = rs.getTimestamp(2);
                    lagMillis.set(oldest == null ? 0 : Math.max(0, clock.millis() - oldest.getTime()));
                });
    }

    private void loop() {
        while (running) {
            int published = 0;
            try {
                published = drainOnce();
                if (clock.instant().isAfter(nextStats)) {
                    refreshStats();
                    nextStats = clock.instant().plusSeconds(5);
                }
            } catch (CallNotPermittedException e) {
                log.debug("Kafka circuit open; outbox rows wait");
            } catch (RuntimeException e) {
                failures.increment();
                log.warn("outbox relay: {}", e.getMessage());
            }
            if (published == 0) {
                try {
                    Duration wait = breaker.getState() == CircuitBreaker.State.OPEN
                            ? properties.pollInterval().multipliedBy(4) : properties.pollInterval();
                    signal.await(wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public void start() {
        if (!properties.enabled() || running) {
            return;
        }
        running = true;
        worker = Thread.ofPlatform().name("outbox-relay").daemon().start(this::loop);
    }

    @Override
    public void stop() {
        running = false;
        Thread t = worker;
        if (t != null) {
            t.interrupt();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    private record Row(long id, String topic, String key, String payload) {
    }
}
