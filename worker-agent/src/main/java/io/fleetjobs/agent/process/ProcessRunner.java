package io.fleetjobs.agent.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs attempts as real processes, each in a process group of its own, so that stopping an attempt stops
 * everything it forked. Linux only: it needs {@code setsid} and {@code kill} (util-linux, procps) on the
 * agent's PATH, and reads procfs.
 *
 * <p>Layout under the work directory:
 * <pre>
 *   attempts/&lt;jobId&gt;-&lt;attempt&gt;/   the attempt's working directory, made fresh on start
 *       stdout.log, stderr.log          its output, each cut at the log cap
 *   running/&lt;jobId&gt;-&lt;attempt&gt;.pgid  its process group, recorded while any process of it may live
 * </pre>
 *
 * <p>Each attempt's command is run as {@code setsid <argv...>}: a child of the JVM is never a group leader,
 * so setsid does not fork but makes the child itself the leader of a new session and group, then execs the
 * command, and the group id is the pid Java knows. Processes that call setsid themselves leave the group
 * and are out of reach, as they would be for any supervisor that is not a cgroup.
 */
public final class ProcessRunner implements AttemptRunner {
    static final String STDOUT = "stdout.log";
    static final String STDERR = "stderr.log";
    /** The search path that execvp uses when PATH is unset. */
    private static final String DEFAULT_PATH = "/bin:/usr/bin";

    private static final Logger log = LoggerFactory.getLogger(ProcessRunner.class);

    /**
     * Runs the job's argv ({@code "$@"}) as a child of a small shell that is the group leader and
     * holds the agent's pipe as its standard input. When the agent dies, for whatever reason, the
     * pipe reaches end of file and the watcher kills the whole group: a job never outlives its
     * agent, so it cannot run on while the control plane, having declared the machine lost, starts
     * it elsewhere. The job itself reads /dev/null; the shell exits with the job's status (128 + n
     * when a signal n ended it). The shell outlasts a TERM sent to the group (it keeps waiting for the
     * job), so the status is the job's: 143 when the job obeys TERM, 137 when it had to be KILLed.
     * (A background list's standard input is /dev/null unless redirected, hence the pipe is handed to
     * the watcher as descriptor 3.)
     */
    static final String TIED_TO_AGENT = String.join("\n",
            "exec 3<&0",
            "\"$@\" </dev/null 3<&- & child=$!",
            "( read -r _ <&3; kill -KILL 0 ) & watcher=$!",
            "exec 3<&-",
            "trap : TERM INT HUP",
            "while :; do wait \"$child\"; status=$?; kill -0 \"$child\" 2>/dev/null || break; done",
            "kill \"$watcher\" 2>/dev/null",
            "exit \"$status\"");

    private final Path attemptsDir;
    private final Path runningDir;
    private final long logCapBytes;
    private final int tailBytes;
    private final Duration killGrace;
    private final InstantSource clock;
    private final ConcurrentMap<AttemptKey, RunningAttempt> running = new ConcurrentHashMap<>();
    private final List<String> passEnv;

    /**
     * What of the agent's environment a job sees by default: the login basics, locale and time zone,
     * temporary directory, and what GPU jobs need (CUDA, NVIDIA's container variables, the library
     * path). Never the agent's own settings ({@code JOBS_*}, {@code SPRING_*}, Java options).
     */
    public static final List<String> DEFAULT_PASS_ENV = List.of("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG",
            "LANGUAGE", "LC_*", "TZ", "TMPDIR", "TERM", "HOSTNAME", "LD_LIBRARY_PATH", "CUDA_*", "NVIDIA_*");

    /**
     * @param workDir     where attempts' directories and process group records live
     * @param logCapBytes the most bytes kept on disk of each of an attempt's stdout and stderr
     * @param tailBytes   the most bytes kept in memory of the end of each
     * @param killGrace   how long a group has between SIGTERM and SIGKILL
     * @param clock       the source of {@code startedAt} and {@code finishedAt}
     */
    public ProcessRunner(Path workDir, long logCapBytes, int tailBytes, Duration killGrace, InstantSource clock) {
        this(workDir, logCapBytes, tailBytes, killGrace, clock, DEFAULT_PASS_ENV);
    }

    /** @param passEnv the agent's variables a job sees: names, or {@code PREFIX*}; see {@link #DEFAULT_PASS_ENV} */
    public ProcessRunner(Path workDir, long logCapBytes, int tailBytes, Duration killGrace, InstantSource clock,
            List<String> passEnv) {
        this.passEnv = List.copyOf(passEnv);
        Path root = Objects.requireNonNull(workDir, "workDir").toAbsolutePath().normalize();
        if (logCapBytes < 0 || tailBytes < 0) {
            throw new IllegalArgumentException("log cap and tail size must not be negative");
        }
        if (killGrace.isNegative()) {
            throw new IllegalArgumentException("kill grace must not be negative: " + killGrace);
        }
        this.attemptsDir = root.resolve("attempts");
        this.runningDir = root.resolve("running");
        this.logCapBytes = logCapBytes;
        this.tailBytes = tailBytes;
        this.killGrace = killGrace;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    private boolean passed(String name) {
        for (String pattern : passEnv) {
            if (pattern.endsWith("*") ? name.startsWith(pattern.substring(0, pattern.length() - 1)) : name.equals(pattern)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Starts the command in a process group of its own, in a fresh working directory
     * {@code workDir/attempts/<jobId>-<attempt>/} (whatever was there is deleted), with the variables
     * of the agent's environment that {@code passEnv} names, then the job's ({@code null} values unset a variable), then {@code JOBS_JOB_ID} and
     * {@code JOBS_ATTEMPT}. Standard input is closed. Standard output and error go to {@code stdout.log} and
     * {@code stderr.log} in that directory, each cut at the log cap, the last bytes of each kept in memory.
     * The group id is recorded under {@code workDir/running/} until no process of the group is left.
     *
     * <p>Starting an attempt that this runner still runs returns the running one: a duplicated lease does
     * not start a second process.
     *
     * @param command the argv; no shell unless it asks for one ({@code ["sh", "-c", "..."]})
     * @throws StartFailedException when the command is not found or not executable, the directory cannot
     *                              be made, the environment is invalid, or the process cannot be spawned
     */
    @Override
    public synchronized RunningAttempt start(AttemptKey key, List<String> command, Map<String, String> env)
            throws StartFailedException {
        Objects.requireNonNull(key, "key");
        RunningAttempt already = running.get(key);
        if (already != null) {
            return already;
        }
        if (command == null || command.isEmpty() || command.stream().anyMatch(Objects::isNull)) {
            throw new StartFailedException("attempt " + key + ": the command is empty or has a null argument");
        }
        Path record = runningDir.resolve(key.fileName() + PgidRecord.SUFFIX);
        if (Files.exists(record)) {
            throw new StartFailedException("attempt " + key + ": a previous agent's process group is still recorded in "
                    + record + "; killLeftovers() must run first");
        }
        Path directory = attemptsDir.resolve(key.fileName());
        Path stdoutFile = directory.resolve(STDOUT);
        Path stderrFile = directory.resolve(STDERR);
        try {
            Files.createDirectories(runningDir);
            deleteTree(directory);
            Files.createDirectories(directory);
            Files.createFile(stdoutFile);
            Files.createFile(stderrFile);
        } catch (IOException | UncheckedIOException e) {
            throw new StartFailedException("attempt " + key + ": cannot make its working directory " + directory + ": "
                    + e, e);
        }

        List<String> argv = new ArrayList<>(command.size() + 6);
        argv.addAll(List.of("setsid", "sh", "-c", TIED_TO_AGENT, "fleetjobs-attempt"));
        argv.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(argv).directory(directory.toFile());
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(name -> !passed(name));
        try {
            if (env != null) {
                env.forEach((name, value) -> {
                    if (value == null) {
                        environment.remove(name);
                    } else {
                        environment.put(name, value);
                    }
                });
            }
            environment.put("JOBS_JOB_ID", key.jobId().toString());
            environment.put("JOBS_ATTEMPT", Integer.toString(key.attempt()));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new StartFailedException("attempt " + key + ": invalid environment: " + e.getMessage(), e);
        }
        String program = command.getFirst();
        if (findExecutable(program, environment.get("PATH"), directory).isEmpty()) {
            throw new StartFailedException("attempt " + key + ": command not found or not executable: " + program
                    + " (PATH=" + environment.getOrDefault("PATH", DEFAULT_PATH) + ")");
        }

        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new StartFailedException("attempt " + key + ": cannot start " + program
                    + " (is setsid, from util-linux, on the agent's PATH?): " + e.getMessage(), e);
        }
        Instant startedAt = clock.instant();
        // the group's lifeline: open while this agent lives, closed at the attempt's end
        process.onExit().thenRun(() -> {
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                log.debug("attempt {}: closing its lifeline: {}", key, e.toString());
            }
        });
        try {
            PgidRecord.of(key, process.pid()).write(record);
        } catch (IOException e) {
            ProcessGroups.signal(process.pid(), "KILL");
            process.destroyForcibly();
            throw new StartFailedException("attempt " + key + ": cannot record its process group in " + record + ": "
                    + e, e);
        }
        RunningAttempt attempt = new RunningAttempt(key, process, startedAt, directory, stdoutFile, stderrFile, record,
                logCapBytes, tailBytes, killGrace, clock, done -> running.remove(done.key(), done));
        running.put(key, attempt);
        attempt.launch();
        log.info("attempt {} started: pgid {}, {}", key, process.pid(), command);
        return attempt;
    }

    /** The attempts this runner has started whose {@link RunningAttempt#exit()} has not completed. */
    public List<RunningAttempt> running() {
        return List.copyOf(running.values());
    }

    /**
     * For an agent restart: kills every process group that a previous incarnation recorded under
     * {@code workDir/running} and did not remove (SIGTERM to all, the kill grace, SIGKILL to what is left),
     * removes the records, and returns their keys, whether or not any process of them was still alive.
     * Blocks for at most the kill grace and a few seconds. A record from before a reboot, or whose group id
     * now belongs to another process, is removed without killing anything. Attempts this runner runs are
     * left alone.
     */
    @Override
    public synchronized List<AttemptKey> killLeftovers() {
        List<PgidRecord> records = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(runningDir)) {
            return List.of();
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(runningDir)) {
            for (Path file : entries) {
                String name = file.getFileName().toString();
                if (!name.endsWith(PgidRecord.SUFFIX)) {
                    RunningAttempt.deleteQuietly(file); // a record half written when the agent died
                    continue;
                }
                try {
                    PgidRecord record = PgidRecord.read(file);
                    if (!running.containsKey(record.key())) {
                        records.add(record);
                        files.add(file);
                    }
                } catch (IOException e) {
                    log.warn("removing unreadable process group record {}: {}", file, e.toString());
                    RunningAttempt.deleteQuietly(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + runningDir, e);
        }

        List<Long> groups = new ArrayList<>();
        for (PgidRecord record : records) {
            try (var ignored = AttemptLogContext.of(record.key())) {
                killLeftover(record, groups);
            }
        }
        if (!ProcessGroups.awaitGone(groups, System.nanoTime() + killGrace.toNanos())) {
            List<Long> left = groups.stream().filter(ProcessGroups::alive).toList();
            log.warn("process groups {} outlived the kill grace of {}; sending KILL", left, killGrace);
            left.forEach(pgid -> ProcessGroups.signal(pgid, "KILL"));
            if (!ProcessGroups.awaitGone(left, System.nanoTime() + Duration.ofSeconds(5).toNanos())) {
                log.warn("process groups {} are still alive after KILL", left.stream().filter(ProcessGroups::alive).toList());
            }
        }
        files.forEach(RunningAttempt::deleteQuietly);
        return records.stream().map(PgidRecord::key).toList();
    }

    /**
     * Where execvp would find the program: a name with a slash is a path (relative to the working
     * directory), any other is looked up on the search path the process will have.
     */
    static Optional<Path> findExecutable(String program, String searchPath, Path workingDirectory) {
        try {
            if (program.isEmpty()) {
                return Optional.empty();
            }
            if (program.contains("/")) {
                return Optional.of(workingDirectory.resolve(program)).filter(ProcessRunner::isExecutableFile);
            }
            for (String dir : (searchPath == null ? DEFAULT_PATH : searchPath).split(":", -1)) {
                Path candidate = workingDirectory.resolve(dir.isEmpty() ? "." : dir).resolve(program);
                if (isExecutableFile(candidate)) {
                    return Optional.of(candidate);
                }
            }
            return Optional.empty();
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    private static boolean isExecutableFile(Path path) {
        return Files.isRegularFile(path) && Files.isExecutable(path);
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException failure) throws IOException {
                if (failure != null) {
                    throw failure;
                }
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Ends one process group a previous incarnation recorded, if it is still ours and alive. */
    private void killLeftover(PgidRecord record, List<Long> groups) {
        if (!record.stillOurs()) {
            log.info("attempt {}: its process group {} is from another boot or gone; nothing to kill", record.key(),
                    record.pgid());
        } else if (ProcessGroups.alive(record.pgid())) {
            log.warn("attempt {}: killing process group {} left by a previous agent", record.key(), record.pgid());
            ProcessGroups.signal(record.pgid(), "TERM");
            groups.add(record.pgid());
        }
    }
}
