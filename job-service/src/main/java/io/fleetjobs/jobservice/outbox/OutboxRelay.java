package io.fleetjobs.jobservice.outbox;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.store.EventGaps;
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
 * Publishes jobs' events to Kafka, at least once, in order per key.
 *
 * <p>Since V33 a job's history row is also its event (the transactional outbox is {@code job_history}): in one
 * transaction a relay locks the one cursor row (a second relay finds it held and waits for its next turn), reads the
 * history above the cursor in position order, sends the events {@link EventGaps} lets it pass with the idempotent
 * producer, waits for the acknowledgements and moves the cursor in the same transaction: one commit a batch. A crash
 * or a broker error rolls the cursor back: the events go again later, and consumers dedupe by event id. Positions
 * order one job's changes as its versions (they are written under its row lock), so publishing in position order
 * keeps each job's events in order; a gap (a transaction that took a position and has not committed) is waited for,
 * never passed, until it is certain to stay empty.
 *
 * <p>Each change used to write its facts twice, its history row and the event's JSON in {@code outbox}, which the
 * relay then deleted and vacuumed; now the relay writes one row per batch. The {@code outbox} table holds only what
 * replicas of the version before wrote during a rolling upgrade: the relay drains it the old way (its shards'
 * advisory locks, delete what was sent) when it refreshes its statistics.
 *
 * <p>After a wake-up, or a batch that was not full, the relay lets rows gather for {@link RelayProperties#gather}
 * before it reads again: under a steady trickle of submits it otherwise read a handful of rows a time, each handful a
 * transaction with its commit and a request to the broker, which every consumer's fetch then answered.
 *
 * <p>While the broker is down, the circuit breaker opens: the relay stops trying for a while
 * instead of blocking on every batch, events wait in Postgres, and everything drains when it returns.
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
    /** What proves a gap between positions empty for good; the relay's thread only. */
    private final EventGaps gaps = new EventGaps();

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
                .description("events not yet published").register(meters);
        Gauge.builder("outbox.lag.seconds", lagMillis, l -> l.get() / 1000.0)
                .description("age of the oldest event not yet published").register(meters);
        this.publishedRows = Counter.builder("outbox.published").description("events published")
                .register(meters);
        this.publishedBatches = Counter.builder("outbox.batches")
                .description("transactions that published events (events a batch: outbox.published over this)")
                .register(meters);
        this.failures = Counter.builder("outbox.publish.failures")
                .description("batches whose publishing failed (rolled back, published again later)").register(meters);
    }

    /**
     * Publishes up to a batch of the events above the cursor, in one transaction, unless another relay holds it.
     * @return the positions the cursor passed (events, and rows written before V33 that are none)
     */
    public int drainOnce() {
        Batch batch = tx.execute(status -> publishHistory());
        if (batch == null) {
            return 0;
        }
        publishedRows.increment(batch.sent()); // committed: the cursor moved past them
        if (batch.sent() > 0) {
            publishedBatches.increment();
        }
        return batch.passed();
    }

    /** What one transaction did: positions the cursor passed, events sent among them. */
    private record Batch(int passed, int sent) {
    }

    private Batch publishHistory() {
        OutboxStore.Cursor cursor = outbox.lockCursor();
        if (cursor == null) {
            return new Batch(0, 0);
        }
        List<OutboxStore.Event> read = outbox.above(cursor.position(), properties.batchSize());
        if (read.isEmpty()) {
            return new Batch(0, 0);
        }
        List<Long> positions = read.stream().map(OutboxStore.Event::position).toList();
        int passable = gaps.publishable(cursor.position(), positions, cursor.xmin());
        List<OutboxStore.Row> events = new ArrayList<>(passable);
        for (OutboxStore.Event e : read.subList(0, passable)) {
            if (e.payload() != null) {
                events.add(new OutboxStore.Row(e.position(), JobEvent.TOPIC, e.key(), e.payload()));
            }
        }
        if (!events.isEmpty()) {
            breaker.executeRunnable(() -> send(events));
        }
        long xmax = outbox.moveCursor(passable == 0 ? cursor.position() : positions.get(passable - 1));
        gaps.afterRead(cursor.position(), positions, passable, xmax);
        return new Batch(passable, events.size());
    }

    /**
     * Publishes what replicas of the version before V33 left in {@code outbox} (a rolling upgrade), the way they did:
     * the shards no other relay holds, in id order, deleted once sent. @return rows published
     */
    public int drainLegacyOutbox() {
        Integer n = tx.execute(status -> {
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
        });
        int published = n == null ? 0 : n;
        publishedRows.increment(published);
        return published;
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
            throw new IllegalStateException("publishing " + rows.size() + " events failed: " + e.getMessage(), e);
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
                    drainLegacyOutbox();
                    refreshStats();
                    nextStats = clock.instant().plusSeconds(5);
                }
            } catch (CallNotPermittedException e) {
                log.debug("Kafka circuit open; events wait");
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
