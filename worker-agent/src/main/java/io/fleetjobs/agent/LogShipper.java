package io.fleetjobs.agent;

import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.AttemptRunner;
import io.fleetjobs.model.agent.AgentProtocol.LogFollow;
import io.fleetjobs.model.logs.LogLimits;
import io.fleetjobs.model.logs.LogStream;
import io.fleetjobs.model.logs.LogWindow;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.client.HttpClientErrorException;

/**
 * Ships the followed streams of this machine's attempts to the scheduler (live logs): the heartbeat's answer says
 * which streams are followed ({@link #follow}); every {@link LogLimits#PUSH_EVERY} each of them gets at most one push
 * of at most {@link LogLimits#PUSH_MAX_BYTES} from where it was shipped to, read from the attempt's log file. The
 * last push of an ended attempt's stream marks its end. Memory holds a cursor per followed stream, never output; an
 * agent behind NAT only dials out, as with heartbeats.
 */
final class LogShipper {
    private static final Logger log = LoggerFactory.getLogger(LogShipper.class);
    /** The attempts whose epochs are remembered, for shipping after their end (the newest this many). */
    private static final int EPOCHS_KEPT = 10_000;

    /** Sends one push; true when someone still follows the stream. */
    interface Pusher {
        boolean push(AttemptKey key, long epoch, String stream, long offset, byte[] data, boolean eof);
    }

    /** How far a followed stream is shipped: -1 until its first push, and whether its end was sent (or refused). */
    private static final class Shipped {
        final long from;
        long cursor = -1;
        boolean done;

        Shipped(long from) {
            this.from = from;
        }
    }

    private final AttemptRunner runner;
    private final Pusher pusher;
    private final Duration every;
    private final Map<LogFollow, Shipped> followed = new ConcurrentHashMap<>();
    private final Set<AttemptKey> live = ConcurrentHashMap.newKeySet();
    private final Map<AttemptKey, Long> epochs = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<AttemptKey, Long> eldest) {
            return size() > EPOCHS_KEPT;
        }
    };
    private final ThreadFactory threads;
    private volatile boolean running;
    private volatile Thread loop;

    LogShipper(AttemptRunner runner, Pusher pusher, Duration every) {
        this(runner, pusher, every, Thread.ofVirtual().name("log-shipper").factory());
    }

    LogShipper(AttemptRunner runner, Pusher pusher, Duration every, ThreadFactory threads) {
        this.runner = runner;
        this.pusher = pusher;
        this.every = every;
        this.threads = threads;
    }

    void attemptStarted(AttemptKey key, long epoch) {
        synchronized (epochs) {
            epochs.put(key, epoch);
        }
        live.add(key);
    }

    /** The attempt's output is all in its files. */
    void attemptEnded(AttemptKey key) {
        live.remove(key);
    }

    /** The streams the scheduler says are followed now; null (an older scheduler, or it could not say): no change. */
    void follow(List<LogFollow> follows) {
        if (follows == null) {
            return;
        }
        Map<LogFollow, LogFollow> wanted = new LinkedHashMap<>();
        follows.forEach(f -> wanted.put(f.key(), f));
        followed.keySet().retainAll(wanted.keySet());
        wanted.forEach((key, f) -> followed.computeIfAbsent(key, k -> new Shipped(f.from())));
    }

    /** What the heartbeat says this agent ships: every stream the scheduler last said is followed. */
    List<LogFollow> shipping() {
        return new ArrayList<>(followed.keySet());
    }

    /**
     * Starts the shipping loop. It runs while {@code running}, set before its thread starts: a loop that tested the
     * thread's field instead could run before that field was assigned (a loaded machine schedules the new thread
     * first) and end at once, leaving every follow of this agent's life unshipped.
     */
    void start() {
        running = true;
        Thread t = threads.newThread(this::run);
        loop = t;
        t.start();
    }

    void stop() {
        running = false;
        Thread t = loop;
        loop = null;
        if (t != null) {
            t.interrupt();
        }
    }

    private void run() {
        while (running) {
            try {
                shipOnce();
                Thread.sleep(every); // the push rate's bound, not a wait for a condition
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.warn("shipping logs failed: {}", e.toString());
            }
        }
    }

    /** One round: at most one push per followed stream. */
    void shipOnce() {
        for (Map.Entry<LogFollow, Shipped> entry : followed.entrySet()) {
            LogFollow follow = entry.getKey();
            Shipped shipped = entry.getValue();
            if (shipped.done) {
                continue;
            }
            try {
                if (!ship(follow, shipped)) {
                    followed.remove(follow, shipped);
                }
            } catch (HttpClientErrorException.Conflict e) {
                log.info("the scheduler refuses logs of {}/{}: {}", follow.jobId(), follow.attempt(), e.getMessage());
                shipped.done = true;
            } catch (IOException | RuntimeException e) {
                log.debug("could not ship {} of {}/{}: {}", follow.stream(), follow.jobId(), follow.attempt(), e.toString());
            }
        }
    }

    /** @return whether someone still follows the stream */
    private boolean ship(LogFollow follow, Shipped shipped) throws IOException {
        AttemptKey key = new AttemptKey(follow.jobId(), follow.attempt());
        Long epoch;
        synchronized (epochs) {
            epoch = epochs.get(key);
        }
        Optional<LogStream> stream = LogStream.ofWire(follow.stream());
        Optional<Path> file = stream.flatMap(s -> runner.logFile(key, s));
        if (epoch == null || file.isEmpty()) {
            return true; // not this incarnation's attempt, or no file kept: nothing to ship; the reader's grace ends it
        }
        boolean ended = !live.contains(key); // read before the size: an ended attempt's file grows no more
        long size = Files.size(file.get());
        if (shipped.cursor < 0) {
            shipped.cursor = LogWindow.start(shipped.from, size);
        }
        Optional<LogWindow.Range> next = LogWindow.nextPush(shipped.cursor, size, LogLimits.PUSH_MAX_BYTES);
        if (next.isEmpty() && !ended) {
            return true;
        }
        byte[] data = next.isEmpty() ? new byte[0] : read(file.get(), next.get());
        boolean eof = ended && shipped.cursor + data.length >= size;
        boolean stillFollowed = pusher.push(key, epoch, follow.stream(), shipped.cursor, data, eof);
        shipped.cursor += data.length;
        shipped.done = eof;
        return stillFollowed;
    }

    private static byte[] read(Path file, LogWindow.Range range) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(range.length());
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long at = range.offset();
            while (buffer.hasRemaining()) {
                int n = channel.read(buffer, at);
                if (n < 0) {
                    break;
                }
                at += n;
            }
        }
        byte[] data = new byte[buffer.position()];
        buffer.flip().get(data);
        return data;
    }
}
