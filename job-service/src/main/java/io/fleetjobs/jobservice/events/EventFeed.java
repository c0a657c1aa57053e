package io.fleetjobs.jobservice.events;

import io.fleetjobs.store.FeedEvent;
import io.fleetjobs.store.HistoryFeed;
import io.fleetjobs.support.PlacesPerKey;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The live changes of jobs for every open stream of this instance, read from job_history by position: one query per
 * {@link #poll()} for all streams, whatever their number. A stream that resumes behind the feed catches up with
 * queries of its own (its job's or its tenant's rows up to the watermark), on its own request's thread in
 * {@link Stream#next}, outside the feed's lock, then rides along: a tenant's catch-up over a long history (its rows
 * are found by position, among every tenant's) once ran inside {@link #poll()}, and held every other stream of the
 * instance while it read.
 *
 * <p>Each stream has a bounded queue; a stream whose client does not keep up is ended (the client resumes from the
 * last id it got), so that one slow reader holds no memory and no other stream back. At least once and in order:
 * a stream is given exactly the changes above its cursor up to the {@link Watermark}, in position order.
 */
public final class EventFeed {
    static final int BATCH = 2_000;
    static final int CATCH_UP = 500;

    private final HistoryFeed history;
    private final InstantSource clock;
    private final Duration grace;
    /** Made at the first read (the database may not answer while the instance starts). */
    private Watermark watermark;
    private final PlacesPerKey<UUID> perTenant;
    private final int queueCapacity;
    private final Set<Stream> streams = ConcurrentHashMap.newKeySet();

    public EventFeed(HistoryFeed history, InstantSource clock, Duration grace, int maxStreamsPerTenant, int queueCapacity) {
        this.history = history;
        this.clock = clock;
        this.grace = grace;
        this.perTenant = new PlacesPerKey<>(maxStreamsPerTenant);
        this.queueCapacity = queueCapacity;
    }

    /** The tenant has as many streams open here as it may. */
    public static final class TooManyStreams extends RuntimeException {
        public TooManyStreams(String message) {
            super(message, null, false, false);
        }
    }

    /** Every change up to here has been handed to the streams that want it. */
    public synchronized long head() {
        return watermark().settled();
    }

    private Watermark watermark() {
        if (watermark == null) {
            watermark = new Watermark(history.newest(), grace);
        }
        return watermark;
    }

    public long oldestKept() {
        return history.oldestKept();
    }

    public int openStreams() {
        return streams.size();
    }

    /**
     * A stream of the tenant's changes ({@code jobId} null) or of one job's, after position {@code after}.
     *
     * @throws TooManyStreams when the tenant has {@code maxStreamsPerTenant} open on this instance
     */
    public Stream open(UUID tenantId, UUID jobId, long after) {
        if (!perTenant.tryTake(tenantId)) {
            throw new TooManyStreams("tenant has " + perTenant.perKey() + " event streams open on this instance");
        }
        Stream stream = new Stream(tenantId, jobId, after, queueCapacity);
        synchronized (this) {
            stream.caughtUp = after >= watermark().settled();
            streams.add(stream);
        }
        return stream;
    }

    /**
     * Reads what is new, moves the watermark and hands each stream its changes. Returns how many rows it read. While
     * no stream is open only the positions are read (the watermark needs no more; the rows and their jobs' tenants were
     * 54 µs of PostgreSQL a job in W1, for nobody); a stream opened meanwhile catches up with a query of its own.
     */
    public synchronized int poll() {
        long before = watermark().settled();
        boolean watched = !streams.isEmpty();
        List<FeedEvent> rows = watched ? history.after(before, BATCH) : List.of();
        List<Long> positions = watched ? rows.stream().map(FeedEvent::position).toList()
                : history.positionsAfter(before, BATCH);
        long settled = watermark().advance(positions, clock.instant());
        for (Stream s : streams) {
            if (!s.caughtUp) {
                continue; // its own thread reads up to the watermark, then hands itself over (catchUp)
            }
            for (FeedEvent e : rows) { // a stream caught up has its cursor at or past the previous watermark
                if (e.position() > settled) {
                    break;
                }
                if (e.position() > s.cursor && s.wants(e)) {
                    s.offer(e);
                }
            }
            s.cursor = Math.max(s.cursor, settled);
        }
        return positions.size();
    }

    /**
     * One step of a stream's catch-up, on its own thread, outside the lock: its rows above its cursor up to the
     * watermark as it stands, a page at most; once its cursor reaches the watermark (checked under the lock, which
     * {@link #poll()} holds while it moves it), the stream is the feed's to serve from there, with nothing missed or
     * given twice.
     */
    private void catchUp(Stream s) {
        long upTo = head();
        List<FeedEvent> rows = s.jobId != null
                ? history.ofJob(s.jobId, s.cursor, upTo, CATCH_UP)
                : history.ofTenant(s.tenantId, s.cursor, upTo, CATCH_UP);
        rows.forEach(s::offer);
        s.cursor = rows.size() < CATCH_UP ? upTo : rows.getLast().position();
        synchronized (this) {
            if (s.cursor >= watermark().settled()) {
                s.caughtUp = true;
            }
        }
    }

    /** Ends every stream (the instance stops): each client resumes elsewhere from its last id. */
    public void closeAll() {
        streams.forEach(Stream::close);
    }

    /** One open stream: what the feed gave it, to be written by the request's thread. */
    public final class Stream implements AutoCloseable {
        private final UUID tenantId;
        private final UUID jobId;
        private final BlockingQueue<FeedEvent> queue;
        /**
         * The highest position this stream has been given or judged not to want: its own thread's while it catches
         * up, the feed's (under its lock) once {@link #caughtUp}.
         */
        private long cursor;
        /** Whether {@link #poll()} serves it; set under the feed's lock, once its cursor reached the watermark. */
        private volatile boolean caughtUp;
        private volatile boolean ended;

        private Stream(UUID tenantId, UUID jobId, long after, int capacity) {
            this.tenantId = tenantId;
            this.jobId = jobId;
            this.cursor = after;
            this.queue = new ArrayBlockingQueue<>(capacity);
        }

        private boolean wants(FeedEvent e) {
            return e.tenantId().equals(tenantId) && (jobId == null || e.jobId().equals(jobId));
        }

        private void offer(FeedEvent e) {
            if (!ended && !queue.offer(e)) {
                ended = true; // too slow: the client resumes from the last id it got
            }
        }

        /** The next change, or null when none came within {@code wait} or the stream has {@link #ended()}. */
        public FeedEvent next(Duration wait) throws InterruptedException {
            FeedEvent e = queue.poll();
            if (e != null || ended) {
                return e;
            }
            if (!caughtUp) {
                // steps until it has something to give or is the feed's: a step that read nothing while the
                // watermark moved goes again, within the wait, rather than answer nothing at once
                long until = System.nanoTime() + wait.toNanos();
                do {
                    catchUp(this);
                    e = queue.poll();
                    if (e != null || ended) {
                        return e;
                    }
                } while (!caughtUp && System.nanoTime() - until < 0);
                if (!caughtUp) {
                    return null;
                }
            }
            return queue.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** No more will come: the client was too slow, or the instance stops. What is queued may still be read. */
        public boolean ended() {
            return ended && queue.isEmpty();
        }

        @Override
        public void close() {
            ended = true;
            if (streams.remove(this)) {
                perTenant.giveBack(tenantId);
            }
        }
    }
}
