package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.agent.process.Attempt;
import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.AttemptRunner;
import io.fleetjobs.model.agent.AgentProtocol.LogFollow;
import io.fleetjobs.model.logs.LogLimits;
import io.fleetjobs.model.logs.LogStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's side of live logs, one round at a time: what it pushes of a followed stream, and when it stops. */
class LogShipperTest {
    record Push(long epoch, String stream, long offset, int length, boolean eof) {
    }

    @TempDir
    Path dir;
    final AttemptKey key = new AttemptKey(UUID.randomUUID(), 1);
    final List<Push> pushes = new ArrayList<>();
    boolean followed = true;

    private LogShipper shipper() {
        return new LogShipper(files(), (k, epoch, stream, offset, data, eof) -> {
            pushes.add(new Push(epoch, stream, offset, data.length, eof));
            return followed;
        }, Duration.ofMillis(250));
    }

    /** The attempt's log files, in the test's directory. */
    private AttemptRunner files() {
        return new AttemptRunner() {
            @Override
            public List<AttemptKey> killLeftovers() {
                return List.of();
            }

            @Override
            public Attempt start(AttemptKey k, List<String> command, Map<String, String> env) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Optional<Path> logFile(AttemptKey k, LogStream stream) {
                Path file = dir.resolve(stream.wire() + ".log");
                return Files.exists(file) ? Optional.of(file) : Optional.empty();
            }
        };
    }

    /**
     * The shipping loop runs however its thread is scheduled: here it runs before {@code start()} returns (as a loaded
     * machine may schedule a new thread first), and it still ships a stream followed later.
     */
    @Test
    void theLoopShipsEvenWhenItsThreadRunsBeforeStartReturns() throws IOException {
        ThreadFactory firstToRun = r -> new Thread(r, "log-shipper-test") {
            @Override
            public void start() {
                super.start();
                // start() returns only once the loop ended or sleeps between rounds
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> getState() == State.TERMINATED || getState() == State.TIMED_WAITING);
            }
        };
        LogShipper shipper = new LogShipper(files(), (k, epoch, stream, offset, data, eof) -> {
            synchronized (pushes) {
                pushes.add(new Push(epoch, stream, offset, data.length, eof));
            }
            return true;
        }, Duration.ofMillis(10), firstToRun);
        shipper.start();
        try {
            shipper.attemptStarted(key, 3);
            print(5);
            shipper.follow(List.of(new LogFollow(key.jobId(), 1, "stdout", 0)));
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                synchronized (pushes) {
                    return !pushes.isEmpty();
                }
            });
            synchronized (pushes) {
                assertThat(pushes.getFirst()).isEqualTo(new Push(3, "stdout", 0, 5, false));
            }
        } finally {
            shipper.stop();
        }
    }

    private void print(int bytes) throws IOException {
        Files.write(dir.resolve("stdout.log"), new byte[bytes], StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    void aFollowedStreamIsPushedInBoundedPiecesAndItsEndMarkedOnceTheAttemptEnded() throws IOException {
        LogShipper shipper = shipper();
        shipper.attemptStarted(key, 7);
        print(100_000);
        shipper.follow(List.of(new LogFollow(key.jobId(), 1, "stdout", 0)));
        assertThat(shipper.shipping()).containsExactly(new LogFollow(key.jobId(), 1, "stdout", 0));

        shipper.shipOnce();
        shipper.shipOnce();
        shipper.shipOnce(); // nothing new, still running: no push
        assertThat(pushes).containsExactly(new Push(7, "stdout", 0, LogLimits.PUSH_MAX_BYTES, false),
                new Push(7, "stdout", LogLimits.PUSH_MAX_BYTES, 100_000 - LogLimits.PUSH_MAX_BYTES, false));

        print(10);
        shipper.attemptEnded(key);
        shipper.shipOnce();
        shipper.shipOnce(); // the end was sent: nothing more
        assertThat(pushes).hasSize(3).last().isEqualTo(new Push(7, "stdout", 100_000, 10, true));
    }

    @Test
    void aFollowOfTheTailStartsAtItsLastBytesAndStopsWhenNoOneFollows() throws IOException {
        LogShipper shipper = shipper();
        shipper.attemptStarted(key, 7);
        print(200_000);
        shipper.follow(List.of(new LogFollow(key.jobId(), 1, "stdout", LogLimits.DEFAULT_FROM)));
        followed = false;
        shipper.shipOnce();
        assertThat(pushes).containsExactly(new Push(7, "stdout", 200_000 + LogLimits.DEFAULT_FROM,
                (int) -LogLimits.DEFAULT_FROM, false));
        assertThat(shipper.shipping()).as("the scheduler said no one follows it").isEmpty();
        print(5);
        shipper.shipOnce();
        assertThat(pushes).hasSize(1);
    }

    @Test
    void anAttemptOfAnotherIncarnationIsNotShippedYetStaysInWhatTheHeartbeatSays() throws IOException {
        LogShipper shipper = shipper();
        print(10);
        shipper.follow(List.of(new LogFollow(key.jobId(), 1, "stdout", 0)));
        shipper.shipOnce();
        assertThat(pushes).isEmpty();
        assertThat(shipper.shipping()).hasSize(1); // else every heartbeat would be answered at once, for ever
        shipper.follow(null); // an answer that does not say: nothing changes
        assertThat(shipper.shipping()).hasSize(1);
        shipper.follow(List.of());
        assertThat(shipper.shipping()).isEmpty();
    }

    /** A reader may follow an attempt placed but not started yet: its output is shipped from its start, whole. */
    @Test
    void aStreamFollowedBeforeItsAttemptStartedIsShippedFromItsStart() throws IOException {
        LogShipper shipper = shipper();
        shipper.follow(List.of(new LogFollow(key.jobId(), 1, "stdout", LogLimits.DEFAULT_FROM)));
        shipper.shipOnce();
        assertThat(pushes).as("not started here yet: nothing to ship").isEmpty();

        shipper.attemptStarted(key, 9);
        shipper.shipOnce();
        assertThat(pushes).as("started, nothing printed yet").isEmpty();
        print(12);
        shipper.shipOnce();
        print(3);
        shipper.attemptEnded(key);
        shipper.shipOnce();
        assertThat(pushes).containsExactly(new Push(9, "stdout", 0, 12, false), new Push(9, "stdout", 12, 3, true));
    }
}
