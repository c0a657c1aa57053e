package io.fleetjobs.agent.process;

import io.fleetjobs.model.FailureReason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt running as a process group of its own, as {@link ProcessRunner#start} made it.
 *
 * <pre>
 *   start ──► running ──(leader exits)──────────────────► stop the rest of the group ─┐
 *               │                                          (TERM, grace, KILL)         │
 *               └──terminate()──► TERM to the group ──grace──► KILL to the group ──────┤
 *                                                                                      ▼
 *                              output drained ──► record removed ──► exit() completes with the Outcome
 * </pre>
 *
 * <p>When the leader exits, whatever is left of its group (background children it did not wait for) is
 * stopped the same way as by {@link #terminate()}: the attempt is over when its leader is, as a container
 * ends with its main process.
 */
public final class RunningAttempt implements Attempt {
    private static final Logger log = LoggerFactory.getLogger(RunningAttempt.class);
    /** How long output may stay open once the group is gone (held by a process that left the group). */
    private static final Duration DRAIN_LIMIT = Duration.ofSeconds(5);
    /** How long to wait for the group to vanish after KILL (a process in uninterruptible sleep dies late). */
    private static final Duration AFTER_KILL = Duration.ofSeconds(5);

    private final AttemptKey key;
    private final Process process;
    private final Instant startedAt;
    private final Path directory;
    private final Path stdoutFile;
    private final Path stderrFile;
    private final Path record;
    private final OutputPump stdout;
    private final OutputPump stderr;
    private final Duration killGrace;
    private final InstantSource clock;
    private final Consumer<RunningAttempt> whenDone;
    private final CompletableFuture<Outcome> exit = new CompletableFuture<>();
    private final Limited limited;
    private final AtomicReference<Outcome.Breach> breach = new AtomicReference<>();
    private final AtomicBoolean killed = new AtomicBoolean();

    /**
     * What holds the attempt besides its process group.
     *
     * @param cgroup            its cgroup, or null where the machine has none
     * @param oomDetail         what an OOM kill's report says
     * @param workDirCapBytes   the most its working directory may hold; 0 for no cap
     * @param diskCheckInterval how often the working directory is measured
     */
    record Limited(Cgroups.AttemptCgroup cgroup, String oomDetail, long workDirCapBytes, Duration diskCheckInterval,
            DiskPressure disk) {
        static final Limited NOTHING = new Limited(null, "", 0, Duration.ofSeconds(10), null);
    }
    private final AtomicReference<CompletableFuture<Void>> stopping = new AtomicReference<>();

    RunningAttempt(AttemptKey key, Process process, Instant startedAt, Path directory, Path stdoutFile, Path stderrFile,
            Path record, long logCapBytes, int tailBytes, Duration killGrace, InstantSource clock, Limited limited,
            Consumer<RunningAttempt> whenDone) {
        this.limited = limited;
        this.key = key;
        this.process = process;
        this.startedAt = startedAt;
        this.directory = directory;
        this.stdoutFile = stdoutFile;
        this.stderrFile = stderrFile;
        this.record = record;
        this.stdout = new OutputPump(process.getInputStream(), stdoutFile, logCapBytes, tailBytes);
        this.stderr = new OutputPump(process.getErrorStream(), stderrFile, logCapBytes, tailBytes);
        this.killGrace = killGrace;
        this.clock = clock;
        this.whenDone = whenDone;
    }

    /**
     * The output readers run on platform threads of a small stack: each blocks in a read of a pipe until the job prints,
     * and on a virtual thread such a read holds one of the virtual thread scheduler's carriers (at most 256) for as
     * long. Past 128 quiet attempts nothing else on virtual threads ran: an exit noticed, a kill, the lease's fence.
     */
    private static final long READER_STACK_BYTES = 256 * 1024;

    void launch() {
        Thread.ofPlatform().daemon().stackSize(READER_STACK_BYTES).name("attempt-" + key + "-stdout")
                .start(AttemptLogContext.wrap(key, stdout));
        Thread.ofPlatform().daemon().stackSize(READER_STACK_BYTES).name("attempt-" + key + "-stderr")
                .start(AttemptLogContext.wrap(key, stderr));
        Thread.ofVirtual().name("attempt-" + key).start(AttemptLogContext.wrap(key, this::supervise));
        if (limited.workDirCapBytes() > 0) {
            Thread.ofVirtual().name("attempt-" + key + "-disk").start(AttemptLogContext.wrap(key, this::watchDisk));
        }
    }

    /** The attempt's cgroup, where it has one. */
    public Optional<Cgroups.AttemptCgroup> cgroup() {
        return Optional.ofNullable(limited.cgroup());
    }

    /** What the working directory holds, and what the attempt's processes hold open of files deleted from it. */
    private long measureDirectory() {
        long walked = DiskUsage.of(directory, limited.workDirCapBytes());
        if (walked == DiskUsage.UNMEASURABLE || limited.cgroup() == null) {
            return walked;
        }
        long held = DiskUsage.heldOpen(limited.cgroup().pids(), directory);
        return walked > Long.MAX_VALUE - held ? DiskUsage.UNMEASURABLE : walked + held;
    }

    /** Measures the working directory now and then; past the cap, the attempt is killed (DISK_LIMIT_EXCEEDED). */
    private void watchDisk() {
        while (!exit.isDone()) {
            try {
                exit.get(limited.diskCheckInterval().toNanos(), TimeUnit.NANOSECONDS);
                return;
            } catch (TimeoutException e) {
                long used = measureDirectory();
                Optional<String> evicted = limited.disk() == null ? Optional.empty()
                        : limited.disk().measured(key, used, directory);
                if (used > limited.workDirCapBytes() || evicted.isPresent()) {
                    String detail = evicted.orElseGet(() -> used == DiskUsage.UNMEASURABLE
                            ? "its working directory holds what the agent cannot measure (a directory the agent may"
                                    + " not read, or a tree changed under each of three walks), so its cap of "
                                    + (limited.workDirCapBytes() >> 20) + " MiB cannot be held"
                            : "its working directory holds " + (used >> 20) + " MiB, more than the cap of "
                                    + (limited.workDirCapBytes() >> 20) + " MiB");
                    log.warn("attempt {}: {}; killing it", key, detail);
                    breach.compareAndSet(null, new Outcome.Breach(FailureReason.DISK_LIMIT_EXCEEDED,
                            detail));
                    stop();
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException e) {
                return;
            }
        }
    }

    public AttemptKey key() {
        return key;
    }

    /** The process group id, which is also the leader's process id. */
    public long pgid() {
        return process.pid();
    }

    @Override
    public Instant startedAt() {
        return startedAt;
    }

    /** The attempt's working directory ({@code <workDir>/attempts/<jobId>-<attempt>}). */
    public Path directory() {
        return directory;
    }

    /** Standard output as captured, up to the runner's cap. */
    public Path stdoutFile() {
        return stdoutFile;
    }

    /** Standard error as captured, up to the runner's cap. */
    public Path stderrFile() {
        return stderrFile;
    }

    /**
     * Completes when the leader has exited, no process of its group is left and its output is drained. Each
     * call returns a new dependent future: completing or cancelling it affects only the caller.
     */
    @Override
    public CompletableFuture<Outcome> exit() {
        return exit.copy();
    }

    /**
     * Stops the whole group: SIGTERM now, SIGKILL after the kill grace to whatever is still alive.
     * Idempotent, and returns at once; {@link #exit()} says when it is over.
     */
    @Override
    public void terminate() {
        stop();
    }

    /**
     * SIGKILL to the whole group now (after the SIGTERM of a {@link #terminate()}, if none was sent yet), whatever is
     * left of the kill grace. Idempotent, returns at once.
     */
    @Override
    public void kill() {
        if (exit.isDone() || !killed.compareAndSet(false, true)) {
            return;
        }
        stop();
        if (process.isAlive() || ProcessGroups.alive(pgid())) {
            log.info("attempt {}: SIGKILL to process group {} (the lease's fence)", key, pgid());
            ProcessGroups.signal(pgid(), "KILL");
            process.destroyForcibly();
        }
    }

    /** Whether the attempt is still running: true until {@link #exit()} completes. */
    public boolean isAlive() {
        return !exit.isDone();
    }

    /** The last bytes of standard output so far, as UTF-8 text. */
    @Override
    public String stdoutTail() {
        return stdout.tail();
    }

    /** The last bytes of standard error so far, as UTF-8 text. */
    @Override
    public String stderrTail() {
        return stderr.tail();
    }

    @Override
    public String toString() {
        return "RunningAttempt[" + key + ", pgid " + pgid() + "]";
    }

    private void supervise() {
        try {
            int exitCode = process.onExit().join().exitValue();
            Instant finishedAt = clock.instant();
            stop().join();
            awaitDrained();
            if (limited.cgroup() != null) {
                // the attempt failed and the kernel killed one of its processes for memory: that is why it failed
                // (a child killed while the job itself went on to exit 0 is the job's business)
                if (exitCode != 0 && limited.cgroup().oomKills() > 0) {
                    breach.compareAndSet(null, new Outcome.Breach(FailureReason.OOM_KILLED,
                            limited.oomDetail()));
                }
                emptyAndRemove(limited.cgroup());
            }
            deleteQuietly(record);
            Outcome outcome = Outcome.of(exitCode, finishedAt, stdout.tail(), stderr.tail()).withBreach(breach.get());
            log.info("attempt {} ended: exit {}{}", key, exitCode,
                    outcome.signal() == null ? "" : " (signal " + outcome.signal() + ")");
            whenDone.accept(this);
            exit.complete(outcome);
        } catch (Throwable e) {
            log.error("attempt {}: supervising its process failed", key, e);
            whenDone.accept(this);
            exit.completeExceptionally(e);
        }
    }

    private CompletableFuture<Void> stop() {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        if (!stopping.compareAndSet(null, mine)) {
            return stopping.get();
        }
        Thread.ofVirtual().name("attempt-" + key + "-stop").start(AttemptLogContext.wrap(key, () -> {
            try {
                stopGroup();
            } catch (RuntimeException e) {
                log.error("attempt {}: stopping process group {} failed", key, pgid(), e);
            } finally {
                mine.complete(null);
            }
        }));
        return mine;
    }

    private void stopGroup() {
        long pgid = pgid();
        long deadline = System.nanoTime() + killGrace.toNanos();
        if (!process.isAlive() && !ProcessGroups.alive(pgid)) {
            return;
        }
        if (!ProcessGroups.signal(pgid, "TERM") && process.isAlive()) {
            // so young that it has not made its own group yet (setsid runs right after exec)
            process.destroy();
        }
        if (awaitGone(deadline)) {
            return;
        }
        log.info("attempt {}: process group {} outlived the kill grace of {}; sending KILL", key, pgid, killGrace);
        ProcessGroups.signal(pgid, "KILL");
        process.destroyForcibly();
        if (!awaitGone(System.nanoTime() + AFTER_KILL.toNanos())) {
            log.warn("attempt {}: process group {} is still alive {} after KILL", key, pgid, AFTER_KILL);
        }
    }

    /** Waits for the leader (an event), then for the rest of the group (polled). */
    private boolean awaitGone(long deadline) {
        try {
            process.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return ProcessGroups.awaitGone(List.of(pgid()), deadline);
    }

    private void awaitDrained() throws InterruptedException, ExecutionException {
        try {
            CompletableFuture.allOf(stdout.done(), stderr.done()).get(DRAIN_LIMIT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            log.warn("attempt {}: its output is still open {} after its process group ended (held by a process that"
                    + " left the group); reporting the output read so far", key, DRAIN_LIMIT);
        }
    }

    /** KILLs whatever is left in the cgroup (nothing, unless a process escaped the group), then removes it. */
    static void emptyAndRemove(Cgroups.AttemptCgroup cgroup) {
        long deadline = System.nanoTime() + AFTER_KILL.toNanos();
        List<Long> left = cgroup.pids();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            left.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            LockSupport.parkNanos(ProcessGroups.POLL_NANOS);
            left = cgroup.pids();
        }
        if (!left.isEmpty()) {
            log.warn("{} still holds processes {}; leaving it", cgroup, left);
            return;
        }
        cgroup.remove();
    }

    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            log.warn("cannot delete {}: {}", file, e.toString());
        }
    }
}
