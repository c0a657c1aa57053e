package io.fleetjobs.jobservice.outbox;

import io.fleetjobs.store.OutboxStore;
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
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Publishes outbox rows to Kafka, at least once, in order per key.
 *
 * <p>Rows are sharded by key. In one transaction a relay takes the transaction-scoped advisory locks of
 * the shards no other relay holds (a shard has one publisher at a time, whatever the number of relays),
 * reads their oldest rows, sends them with the idempotent producer, waits for the acknowledgements, and
 * deletes them in the same transaction: one commit a batch (a transaction a shard cost the server a
 * commit, and its flush, for each of up to sixteen shards at every pass). A crash or a broker error
 * rolls the deletes back: the rows go again later, and consumers dedupe. The advisory locks are what
 * keep two relays off one shard, so the rows are read without row locks (each would be a WAL record).
 *
 * <p>A published row is deleted rather than marked: the outbox holds only what Kafka has not yet
 * acknowledged, so it stays small whatever the history, and a mark (a new version of the row with its
 * whole payload, plus its index entries) would write twice what the delete does. The job's history
 * ({@code job_history}) is the lasting record of its changes, not the outbox.
 *
 * <p>After a wake-up, or a batch that was not full, the relay lets rows gather for {@link RelayProperties#gather}
 * before it reads again: under a steady trickle of submits it otherwise read a handful of rows a time, each handful a
 * transaction with its commit and a request to the broker, which every consumer's fetch then answered.
 *
 * <p>Deleting every row it published makes the outbox a queue table, whose dead rows the read would step over until
 * they are vacuumed; the relay vacuums it itself every {@link RelayProperties#vacuumEvery} rows it deleted, rather than
 * wait for autovacuum's next round ({@link OutboxStore#vacuum}).
 *
 * <p>While the broker is down, the circuit breaker opens: the relay stops trying for a while
 * instead of blocking on every batch, rows wait in Postgres, and everything drains when it returns.
 */
@Component
public class OutboxRelay implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
    private final OutboxStore outbox;
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
    private final Counter publishedBatches;
    private final Counter failures;
    /** Rows this relay deleted since it last vacuumed the outbox; the relay's thread only. */
    private long deletedSinceVacuum;

    public OutboxRelay(OutboxStore outbox, PlatformTransactionManager transactions, KafkaTemplate<String, String> kafka,
            CircuitBreakerRegistry breakers, OutboxSignal signal, InstantSource clock, RelayProperties properties,
            MeterRegistry meters) {
        this.outbox = outbox;
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
        this.publishedBatches = Counter.builder("outbox.batches")
                .description("transactions that published outbox rows (rows a batch: outbox.published over this)")
                .register(meters);
        this.failures = Counter.builder("outbox.publish.failures")
                .description("batches whose publishing failed (rolled back, published again later)").register(meters);
    }

    /**
     * Publishes up to a batch of what waits in the shards no other relay holds, in one transaction: one commit
     * for the batch, whatever the number of shards it spans. @return rows published
     */
    public int drainOnce() {
        Integer n = tx.execute(status -> publishFree());
        int published = n == null ? 0 : n;
        publishedRows.increment(published); // committed: the rows sent are deleted
        if (published > 0) {
            publishedBatches.increment();
        }
        deletedSinceVacuum += published;
        if (properties.vacuumEvery() > 0 && deletedSinceVacuum >= properties.vacuumEvery()) {
            deletedSinceVacuum = 0;
            try {
                outbox.vacuum(); // outside the transaction, which has committed
            } catch (RuntimeException e) {
                log.warn("vacuuming the outbox failed (autovacuum will do it later): {}", e.getMessage());
            }
        }
        return published;
    }

    private int publishFree() {
        int[] shards = outbox.tryLockShards();
        if (shards.length == 0) {
            return 0;
        }
        List<OutboxStore.Row> rows = outbox.oldest(shards, properties.batchSize());
        if (rows.isEmpty()) {
            return 0;
        }
        breaker.executeRunnable(() -> send(rows));
        outbox.delete(rows);
        return rows.size();
    }

    private void send(List<OutboxStore.Row> rows) {
        List<CompletableFuture<?>> acks = new ArrayList<>(rows.size());
        for (OutboxStore.Row row : rows) {
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
        OutboxStore.Backlog waiting = outbox.backlog();
        backlog.set(waiting.rows());
        lagMillis.set(waiting.oldest() == null ? 0 : Math.max(0, clock.millis() - waiting.oldest().toEpochMilli()));
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
            if (published >= properties.batchSize()) {
                continue; // more rows wait
            }
            try {
                if (published == 0) {
                    Duration wait = breaker.getState() == CircuitBreaker.State.OPEN
                            ? properties.pollInterval().multipliedBy(4) : properties.pollInterval();
                    signal.await(wait);
                }
                if (properties.gather().isPositive()) {
                    Thread.sleep(properties.gather()); // rows of more commits join the next batch
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
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
}
