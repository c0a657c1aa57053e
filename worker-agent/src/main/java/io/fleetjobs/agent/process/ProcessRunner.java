package io.fleetjobs.agent.process;

import io.fleetjobs.model.ExecString;
import io.fleetjobs.model.logs.LogStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs attempts as real processes, each in a process group of its own, so that stopping an attempt stops
 * everything it forked. Linux only: it needs {@code setsid} and {@code kill} (util-linux, procps) on the
 * agent's PATH, and reads procfs.
 *
 * <p>Layout under the work directory:
 * <pre>
 *   attempts/&lt;jobId&gt;-&lt;attempt&gt;/   the attempt's working directory, made fresh on start; removed
 *                                    {@code retention} after the attempt ended
 *       stdout.log, stderr.log          its output, each cut at the log cap
 *       work/                           in a sandbox: the working directory (see {@link Sandboxing})
 *   running/&lt;jobId&gt;-&lt;attempt&gt;.pgid  its process group, recorded while any process of it may live
 * </pre>
 *
 * <p>Where the agent is root, each attempt runs in a {@link Sandbox} (its own uid, pid, mount and IPC
 * namespaces) and, where the machine has cgroups, in a cgroup of its own ({@link Cgroups}) that holds it to
 * the memory and CPU it asked for; an OOM kill ends it as OOM_KILLED. {@link #forMachine} says at start what
 * it cannot enforce.
 *
 * <p>Each attempt's command is run as {@code setsid <argv...>}: a child of the JVM is never a group leader,
 * so setsid does not fork but makes the child itself the leader of a new session and group, then execs the
 * command, and the group id is the pid Java knows. Processes that call setsid themselves leave the group
 * and are out of reach, as they would be for any supervisor that is not a cgroup.
 */
public final class ProcessRunner implements AttemptRunner {
    static final String STDOUT = "stdout.log";
    static final String STDERR = "stderr.log";
    /** A sandboxed attempt's environment, root's alone, which the job reads as it starts ({@link Sandbox#environmentFile}). */
    static final String ENVIRONMENT = "environment";
    /** A sandboxed attempt's working directory, beside its logs. */
    static final String WORK = "work";
    /** A sandboxed job's search path when the agent passes none. */
    static final String SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";
    /** The search path that execvp uses when PATH is unset. */
    private static final String DEFAULT_PATH = "/bin:/usr/bin";

    private static final Logger log = LoggerFactory.getLogger(ProcessRunner.class);

    /**
     * Runs the job's argv ({@code "$@"}) as a child of a small shell that is the group leader and
     * holds the agent's pipe as its standard input. When the agent dies, for whatever reason, the
     * pipe reaches end of file and the watcher kills the whole group: a job never outlives its
     * agent, so it cannot run on while the control plane, having declared the machine lost, starts
     * it elsewhere. The job itself reads /dev/null; the shell exits with the job's status (128 + n
     * when a signal n ended it). The shell outlasts a TERM sent to the group: its trap is set before the job starts
     * (a TERM that came between the two ended the shell with 143 whatever the job then did), and a trap waits for
     * the foreground command's end, so the status is the job's: 143 when the job obeys TERM, 137 when it had to be
     * KILLed. The job runs in the foreground: a shell without job control starts a background command with SIGINT and
     * SIGQUIT ignored, for good (a program cannot tell it from its own choice, and passes it on to all it runs), and
     * so a Python job never saw KeyboardInterrupt. The watcher ignores TERM, so a job in its grace still dies with
     * its agent: it is forked while the shell ignores TERM (a TERM between its fork and a trap of its own ended it). The
     * job's argv is exec'd from a subshell, so that its first word is always a program, as a background command's was,
     * never a builtin of this shell ({@code wait} would wait for the watcher, {@code exit} end the shell). (A
     * background list's standard input is /dev/null unless redirected, hence the pipe is handed to the watcher as
     * descriptor 3, closed in the shell before the job starts.)
     */
    static final String TIED_TO_AGENT = String.join("\n",
            "trap '' TERM INT HUP", // the watcher is born ignoring them: a TERM before its own trap would end it
            "exec 3<&0",
            "( read -r _ <&3; kill -KILL 0 ) & watcher=$!",
            "trap : TERM INT HUP",
            "exec 3<&-",
            "( exec \"$@\" ) </dev/null", // a program, never a builtin of this shell (wait, exit, cd)
            "status=$?",
            "kill -KILL \"$watcher\" 2>/dev/null",
            "exit \"$status\"");

    private final Path workRoot;
    private final Path attemptsDir;
    private final Path runningDir;
    private final long logCapBytes;
    private final int tailBytes;
    private final Duration killGrace;
    private final InstantSource clock;
    private final ConcurrentMap<AttemptKey, RunningAttempt> running = new ConcurrentHashMap<>();
    private final List<String> passEnv;
    private final SandboxSettings settings;
    private final Isolation isolation;
    /** Whether a sandboxed attempt sees the machine's file systems read-only (where the machine allows it). */
    private final boolean readOnlyMachine;
    /** Whether the machine's egress rules were applied ({@link #fenceEgress}). */
    private volatile boolean egressFenced;
    /** In the machine's work directory: the name of the nftables table {@link #fenceEgress} applied, while it holds. */
    public static final String EGRESS_TABLE_FILE = "egress-table";
    /** The sandbox's steps beyond its base that this machine allows ({@link Sandbox.Hardening}). */
    private final Set<Sandbox.Hardening> hardening;
    private final Cgroups cgroups;
    /** The disk the working directories share, watched for all attempts together. */
    private final DiskPressure disk;
    /** What all attempts together may use ({@link #holdAllAttemptsTo}); 0 while not limited. */
    private volatile long machineMemoryBytes;
    /** The uids of the attempts that run now; each attempt has one of its own. */
    private final Set<Integer> uidsInUse = ConcurrentHashMap.newKeySet();
    private int nextUid;
    /** When each attempt this runner ran ended, for the retention of its directory. */
    private final ConcurrentMap<String, Instant> ended = new ConcurrentHashMap<>();


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
        this(workDir, logCapBytes, tailBytes, killGrace, clock, passEnv, SandboxSettings.NONE, Isolation.NONE, null);
    }

    /**
     * @param isolation SANDBOX only where {@link #probe} found that it works (root, unshare, setpriv)
     * @param cgroups   where attempts' cgroups go; null for none
     */
    public ProcessRunner(Path workDir, long logCapBytes, int tailBytes, Duration killGrace, InstantSource clock,
            List<String> passEnv, SandboxSettings settings, Isolation isolation, Cgroups cgroups) {
        this(workDir, logCapBytes, tailBytes, killGrace, clock, passEnv, settings, isolation, true,
                hardeningWanted(settings), cgroups);
    }

    private ProcessRunner(Path workDir, long logCapBytes, int tailBytes, Duration killGrace, InstantSource clock,
            List<String> passEnv, SandboxSettings settings, Isolation isolation, boolean readOnlyMachine,
            Set<Sandbox.Hardening> hardening, Cgroups cgroups) {
        this.passEnv = List.copyOf(passEnv);
        this.settings = Objects.requireNonNull(settings, "settings");
        this.isolation = Objects.requireNonNull(isolation, "isolation");
        this.readOnlyMachine = readOnlyMachine;
        this.hardening = Set.copyOf(hardening);
        this.disk = new DiskPressure(settings.diskReserveBytes(), () -> removeExpired(now()));
        this.cgroups = cgroups;
        this.nextUid = settings.firstUid();
        Path root = Objects.requireNonNull(workDir, "workDir").toAbsolutePath().normalize();
        if (logCapBytes < 0 || tailBytes < 0) {
            throw new IllegalArgumentException("log cap and tail size must not be negative");
        }
        if (killGrace.isNegative()) {
            throw new IllegalArgumentException("kill grace must not be negative: " + killGrace);
        }
        this.workRoot = root;
        this.attemptsDir = root.resolve("attempts");
        this.runningDir = root.resolve("running");
        this.logCapBytes = logCapBytes;
        this.tailBytes = tailBytes;
        this.killGrace = killGrace;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * The runner this machine can have: a sandbox and cgroups where the agent is root and they work, else
     * what is possible, with a warning at start naming what is not enforced.
     */
    public static ProcessRunner forMachine(Path workDir, long logCapBytes, int tailBytes, Duration killGrace,
            InstantSource clock, List<String> passEnv, SandboxSettings settings) {
        boolean root = agentUid() == 0;
        Cgroups cgroups = root ? Cgroups.detect(Path.of("/proc/self/mountinfo"), settings.cgroupParent()).orElse(null)
                : null;
        Isolation isolation = Isolation.NONE;
        boolean readOnlyMachine = true;
        Set<Sandbox.Hardening> hardening = EnumSet.noneOf(Sandbox.Hardening.class);
        if (!settings.sandbox()) {
            log.warn("isolation is off (jobs.worker.isolation.sandbox=false): attempts run as the agent's uid and can"
                    + " read its files and other attempts' environments");
        } else if (!root) {
            log.warn("the agent does not run as root: attempts run as its own uid {}, see the whole machine, can read"
                    + " the agent's files and other attempts' /proc/<pid>/environ, and no cgroup limits their memory,"
                    + " CPU or processes", agentUid());
        } else {
            // the base first, then each step beyond it alone: one the machine does not allow is left out, with a warning
            Optional<String> failure = probe(settings, false, Set.of());
            if (failure.isEmpty()) {
                Optional<String> readOnly = probe(settings, true, Set.of());
                if (readOnly.isPresent()) {
                    log.warn("the machine's file systems cannot be made read-only for attempts ({}): each still runs in"
                            + " its sandbox, but may write wherever its uid may (a world-writable /var/tmp, say)",
                            readOnly.get());
                    readOnlyMachine = false;
                }
                for (Sandbox.Hardening step : hardeningWanted(settings)) {
                    Optional<String> stepFailure = probe(settings, false, Set.of(step));
                    if (stepFailure.isEmpty()) {
                        hardening.add(step);
                    } else {
                        log.warn("the sandbox cannot take the step {} here ({}): {}", step, stepFailure.get(),
                                step.without());
                    }
                }
            }
            if (failure.isEmpty()) {
                isolation = Isolation.SANDBOX;
                if (!Sandbox.ENVIRONMENT_BY_FILE) {
                    log.warn("no /usr/bin/perl: a job's environment reaches it as arguments of env, which every user of"
                            + " the machine may read in /proc/<pid>/cmdline while the attempt runs");
                }
            } else {
                log.warn("the sandbox does not work here ({}): attempts run as root and see the whole machine",
                        failure.get());
            }
        }
        if (root && cgroups == null) {
            log.warn("no writable cgroup hierarchy (cgroup v2 with the memory controller, or v1 memory): attempts'"
                    + " memory, CPU and processes are not limited, and OOM kills cannot be told apart");
        }
        log.info("isolation: {}{}; cgroups: {}", isolation.wire(), isolation != Isolation.SANDBOX ? ""
                : " (machine read-only: " + readOnlyMachine + ", steps: " + hardening + ")",
                cgroups == null ? "none" : cgroups.version() + " under " + settings.cgroupParent());
        return new ProcessRunner(workDir, logCapBytes, tailBytes, killGrace, clock, passEnv, settings, isolation,
                readOnlyMachine, hardening, cgroups);
    }

    /**
     * Holds every attempt together below the machine's pids ({@link Cgroups#machinePidsBudget}), so that the agent
     * and the machine can always fork, and to the memory this machine offers, with the headroom one attempt gets on
     * what it asked for; from then on each attempt gets an OOM score by its request ({@link Cgroups#oomScoreAdj}).
     * No effect without cgroups.
     */
    public void holdAllAttemptsTo(long offeredMemoryMb) {
        if (cgroups == null) {
            return;
        }
        OptionalLong budget = Cgroups.machinePidsBudget();
        try {
            if (budget.isPresent()) {
                cgroups.limitAllAttempts(budget.getAsLong());
                log.info("attempts together may run at most {} processes", budget.getAsLong());
            } else {
                log.warn("cannot read /proc/sys/kernel/pid_max: the attempts together are not limited in processes");
            }
        } catch (IOException | RuntimeException e) {
            log.warn("cannot limit the attempts' processes together ({}): a few of them could take every pid of the"
                    + " machine", e.toString());
        }
        if (offeredMemoryMb <= 0) {
            return;
        }
        long bytes = Cgroups.Limits.of(null, offeredMemoryMb, settings.minHeadroomMb(), settings.headroomPercent(), null)
                .memoryBytes();
        try {
            cgroups.limitAllAttemptsMemory(bytes);
            machineMemoryBytes = bytes;
            log.info("attempts together may use at most {} MiB (the {} MiB offered, with headroom)", bytes >> 20,
                    offeredMemoryMb);
        } catch (IOException | RuntimeException e) {
            log.warn("cannot limit the attempts' memory together ({}): many attempts using their headroom could take"
                    + " the machine's memory", e.toString());
        }
    }

    /**
     * Applies the machine's egress rules to its attempts' uids ({@link Egress}, {@link EgressFence}); empty when they
     * hold, else why not. Until it has been called with success, {@link #isolationGaps} names {@code egress}.
     */
    public Optional<String> fenceEgress(String table, Egress egress) {
        Optional<String> failure = EgressFence.apply(table, egress, settings.firstUid(), settings.uidCount());
        egressFenced = failure.isEmpty();
        if (egressFenced) {
            try { // for whoever must remove the table after a kill (a launcher of agents): the name, not its rule
                Files.createDirectories(workRoot);
                Files.writeString(workRoot.resolve(EGRESS_TABLE_FILE), table + "\n");
            } catch (IOException e) {
                log.warn("cannot record the egress table's name in {}: {}", workRoot, e.toString());
            }
        }
        return failure;
    }

    /** Removes the table {@link #fenceEgress} applied, and its record; empty when done, else why not. */
    public Optional<String> unfenceEgress(String table) {
        Optional<String> failure = EgressFence.remove(table);
        if (failure.isEmpty()) {
            egressFenced = false;
            try {
                Files.deleteIfExists(workRoot.resolve(EGRESS_TABLE_FILE));
            } catch (IOException e) {
                log.debug("cannot delete the egress table's record: {}", e.toString());
            }
        }
        return failure;
    }

    /**
     * What the sandbox does not hold on this machine, as the join tells the scheduler: {@code cgroups} (no writable
     * hierarchy), {@code read-only-machine}, each {@link Sandbox.Hardening} step not taken ({@code own-user-namespace},
     * {@code own-session-keyring}) and {@code egress} (no rules applied); empty without a sandbox.
     */
    public List<String> isolationGaps() {
        if (isolation != Isolation.SANDBOX) {
            return List.of();
        }
        List<String> gaps = new ArrayList<>();
        if (cgroups == null) {
            gaps.add("cgroups");
        }
        if (!readOnlyMachine) {
            gaps.add("read-only-machine");
        }
        for (Sandbox.Hardening step : Sandbox.Hardening.values()) {
            if (!hardening.contains(step)) {
                gaps.add(step.name().toLowerCase(Locale.ROOT).replace('_', '-'));
            }
        }
        if (!egressFenced) {
            gaps.add("egress");
        }
        return gaps;
    }

    /** Runs {@code true} in a sandbox; empty when it worked, else what went wrong. */
    static Optional<String> probe(SandboxSettings settings) {
        return probe(settings, true, hardeningWanted(settings));
    }

    /** The steps beyond the base the settings ask for, of those this machine could take ({@link Sandbox.Hardening}). */
    static Set<Sandbox.Hardening> hardeningWanted(SandboxSettings settings) {
        Set<Sandbox.Hardening> wanted = EnumSet.noneOf(Sandbox.Hardening.class);
        wanted.addAll(Sandbox.Hardening.candidates());
        if (settings.userNamespaces()) {
            wanted.remove(Sandbox.Hardening.OWN_USER_NAMESPACE);
        }
        return wanted;
    }

    /**
     * As {@link #probe(SandboxSettings)}, with or without the machine's file systems made read-only, and with the
     * steps beyond the base given.
     */
    static Optional<String> probe(SandboxSettings settings, boolean readOnlyMachine, Set<Sandbox.Hardening> steps) {
        List<Path> readOnly;
        try {
            readOnly = readOnlyMachine ? writableMounts() : List.of();
        } catch (IOException e) {
            return Optional.of("cannot read the machine's mounts: " + e);
        }
        List<String> argv = new ArrayList<>(new Sandbox(settings.firstUid(), 1 << 20, List.of(), null, readOnly,
                steps)
                .argv(List.of("true")));
        try {
            ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true).directory(new File("/"));
            builder.environment().clear();
            builder.environment().putAll(Sandbox.ROOT_ENVIRONMENT);
            Process p = builder.start();
            // the gate opens; the lifeline stays open until the probe is over (its end of file would kill it)
            p.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().flush();
            boolean ended = p.waitFor(10, TimeUnit.SECONDS);
            p.getOutputStream().close();
            if (!ended) {
                p.destroyForcibly();
                return Optional.of("the probe did not end within 10 s");
            }
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.exitValue() == 0 ? Optional.empty() : Optional.of("exit " + p.exitValue() + ": " + said);
        } catch (IOException e) {
            return Optional.of(e.getMessage() + " (are unshare and setpriv, from util-linux, on the agent's PATH?)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted");
        }
    }

    /** The mount points the agent sees read-write, as an attempt's sandbox makes them read-only. */
    private static List<Path> writableMounts() throws IOException {
        return Sandbox.writableMounts(Files.readAllLines(Path.of("/proc/self/mountinfo")));
    }

    /** The agent's own effective uid, from procfs; -1 when unknown. */
    static int agentUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return Integer.parseInt(line.substring(4).strip().split("\\s+")[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("cannot read the agent's uid: {}", e.toString());
        }
        return -1;
    }

    /** The uids the sandbox gives attempts, one each; null where attempts are not sandboxed. */
    public Integer sandboxUids() {
        return isolation == Isolation.SANDBOX ? settings.uidCount() : null;
    }

    /** How this runner holds attempts apart: {@code SANDBOX} or {@code NONE}. */
    public Isolation isolation() {
        return isolation;
    }

    /** The cgroup version attempts are limited with ({@code v1}, {@code v2}), or empty when none. */
    public Optional<String> cgroupVersion() {
        return Optional.ofNullable(cgroups).map(Cgroups::version);
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
    public RunningAttempt start(AttemptKey key, List<String> command, Map<String, String> env)
            throws StartFailedException {
        return start(key, command, env, Requested.NOTHING);
    }

    /**
     * As {@link #start(AttemptKey, List, Map)}, in a cgroup of its own that holds the attempt to what it asked
     * for, where the machine has cgroups. In a sandbox ({@link Isolation#SANDBOX}) the working directory is
     * {@code attempts/<jobId>-<attempt>/work} (0700, the attempt's uid), beside the logs (0600, root's, in a
     * directory only root may list), {@code HOME} is the working directory and {@code TMPDIR} {@code /tmp}.
     *
     * @throws CommandNotStartableException when the command is not found on the job's PATH or not executable by
     *                                      the job's user: the job's failure
     */
    @Override
    public synchronized RunningAttempt start(AttemptKey key, List<String> command, Map<String, String> env,
            Requested requested) throws StartFailedException {
        Objects.requireNonNull(key, "key");
        RunningAttempt already = running.get(key);
        if (already != null) {
            return already;
        }
        if (command == null || command.isEmpty() || command.stream().anyMatch(Objects::isNull)) {
            throw new StartFailedException("attempt " + key + ": the command is empty or has a null argument");
        }
        if (requested != null && requested.ownNetwork() && isolation != Isolation.SANDBOX) {
            // the scheduler places such jobs on sandboxing machines only: not the job's failure
            throw new StartFailedException("attempt " + key + ": a network of its own (execution.network none) needs the"
                    + " sandbox, and this machine does not sandbox its jobs");
        }
        Path record = runningDir.resolve(key.fileName() + PgidRecord.SUFFIX);
        if (Files.exists(record)) {
            throw new StartFailedException("attempt " + key + ": a previous agent's process group is still recorded in "
                    + record + "; killLeftovers() must run first");
        }
        boolean sandboxed = isolation == Isolation.SANDBOX;
        Integer uid = sandboxed ? takeUid() : null;
        if (sandboxed && uid == null) {
            throw new StartFailedException("attempt " + key + ": all " + settings.uidCount() + " uids from "
                    + settings.firstUid() + " are taken by running attempts");
        }
        boolean started = false;
        try {
            RunningAttempt attempt = startAs(key, command, env, requested, record, uid);
            started = true;
            return attempt;
        } finally {
            if (!started && uid != null) {
                uidsInUse.remove(uid);
            }
        }
    }

    /**
     * The start, step by step: the attempt's directory and log files, the argv (the sandbox's, or the agent's lifeline
     * around the command), the job's environment, whether the command can start at all, the attempt's cgroup, the
     * process (waiting at its gate where a cgroup or sandbox must take it first), its group's record, and the handle.
     */
    private RunningAttempt startAs(AttemptKey key, List<String> command, Map<String, String> env, Requested requested,
            Path record, Integer uid) throws StartFailedException {
        Path attemptDir = attemptsDir.resolve(key.fileName());
        Path directory = uid == null ? attemptDir : attemptDir.resolve(WORK);
        Path stdoutFile = attemptDir.resolve(STDOUT);
        Path stderrFile = attemptDir.resolve(STDERR);
        prepareDirectories(key, attemptDir, stdoutFile, stderrFile, directory, uid);

        Sandbox sandbox = uid == null ? null : sandbox(key, requested, uid, directory);
        ProcessBuilder builder = new ProcessBuilder(sandbox != null ? List.of() // below, once the job's environment is known
                : cgroups != null ? Sandbox.gatedArgv(command) : tiedToAgent(command)).directory(directory.toFile());
        Map<String, String> environment = builder.environment();
        jobEnvironment(key, environment, env, uid != null ? directory : null);
        Map<String, String> jobEnvironment = Map.copyOf(environment);
        Path environmentFile = sandbox != null && Sandbox.ENVIRONMENT_BY_FILE ? attemptDir.resolve(ENVIRONMENT) : null;
        if (sandbox != null) {
            try { // the job's environment reaches the job only; root's part of the start runs in a fixed one
                builder.command(sandbox.argv(command, jobEnvironment, environmentFile));
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new StartFailedException("attempt " + key + ": invalid environment: " + e.getMessage(), e);
            }
        }
        String program = command.getFirst();
        requireStartable(key, program, environment, directory, uid);
        if (sandbox != null) {
            environment.clear();
            environment.putAll(Sandbox.ROOT_ENVIRONMENT);
        }
        Optional<String> tooLong = tooLongForExec(builder.command(), sandbox != null ? jobEnvironment : environment);
        if (tooLong.isPresent()) {
            throw new CommandNotStartableException("attempt " + key + ": " + tooLong.get(),
                    CommandNotStartableException.NOT_EXECUTABLE);
        }

        Cgroups.Limits limits = cgroups == null ? null : Cgroups.Limits.of(requested.cpuMillis(), requested.memoryMb(),
                settings.minHeadroomMb(), settings.headroomPercent(), settings.pidsMax());
        Cgroups.AttemptCgroup cgroup = limits == null ? null : cgroup(key, limits);
        Process process;
        try {
            if (environmentFile != null) {
                writeEnvironment(key, environmentFile, jobEnvironment);
            }
            process = spawn(key, builder, program, cgroup);
            if (cgroup != null || sandbox != null) {
                openGate(key, process, cgroup, requested);
            }
        } catch (StartFailedException | RuntimeException e) {
            forgetEnvironment(environmentFile);
            throw e;
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
        RunningAttempt.Limited limited = new RunningAttempt.Limited(cgroup, oomDetail(requested, limits),
                settings.workDirCapBytes(), settings.diskCheckInterval(), disk);
        RunningAttempt attempt = new RunningAttempt(key, process, startedAt, directory, stdoutFile, stderrFile, record,
                logCapBytes, tailBytes, killGrace, clock, limited, done -> {
                    running.remove(done.key(), done);
                    disk.forget(key);
                    ended.put(key.fileName(), clock.instant());
                    if (uid != null) {
                        forgetEnvironment(environmentFile); // the sandbox removed it as it started, but for a failed start
                        Sandboxing.lock(directory);
                        uidsInUse.remove(uid);
                    }
                });
        running.put(key, attempt);
        attempt.launch();
        log.info("attempt {} started: pgid {}{}{}, {}", key, process.pid(), uid == null ? "" : ", uid " + uid,
                cgroup == null ? "" : ", " + cgroup, command);
        return attempt;
    }

    /** A fresh attempt directory with empty log files; in a sandbox, owned and locked down for the attempt's uid. */
    private void prepareDirectories(AttemptKey key, Path attemptDir, Path stdoutFile, Path stderrFile, Path directory,
            Integer uid) throws StartFailedException {
        try {
            Files.createDirectories(runningDir);
            deleteTree(attemptDir);
            ended.remove(key.fileName());
            Files.createDirectories(attemptDir);
            Files.createFile(stdoutFile);
            Files.createFile(stderrFile);
            if (uid != null) {
                Sandboxing.prepare(workRoot, attemptsDir, runningDir, attemptDir, stdoutFile, stderrFile, directory, uid);
            }
        } catch (IOException | UncheckedIOException e) {
            throw new StartFailedException("attempt " + key + ": cannot make its working directory " + directory + ": "
                    + e, e);
        }
    }

    /** The attempt's sandbox: its uid, the GPUs it may not see, the mounts it may not write. */
    private Sandbox sandbox(AttemptKey key, Requested requested, int uid, Path directory) throws StartFailedException {
        List<Integer> own = requested == null ? List.of() : requested.gpuDevices();
        List<Path> otherGpus;
        try {
            otherGpus = Sandbox.otherGpus(settings.deviceDir(), own);
        } catch (UncheckedIOException e) {
            throw new StartFailedException("attempt " + key + ": " + e.getMessage() + ": " + e.getCause(), e);
        }
        List<Path> readOnly;
        try {
            readOnly = readOnlyMachine ? writableMounts() : List.of();
        } catch (IOException e) {
            throw new StartFailedException("attempt " + key + ": cannot read the machine's mounts: " + e, e);
        }
        return new Sandbox(uid, settings.tmpBytes(), otherGpus, directory, readOnly, hardening,
                requested != null && requested.ownNetwork());
    }

    /** Neither sandbox nor cgroup: the command in a session of its own, killed with its group once the agent goes. */
    private static List<String> tiedToAgent(List<String> command) {
        List<String> argv = new ArrayList<>(command.size() + 6);
        argv.addAll(List.of("setsid", "sh", "-c", TIED_TO_AGENT, "fleetjobs-attempt"));
        argv.addAll(command);
        return argv;
    }

    /**
     * The job's environment, made in place from the agent's: only the names passed on, then (in a sandbox, {@code
     * sandboxHome} not null) the job's own HOME, PATH and TMPDIR, the job's variables (null removes one) and the
     * attempt's names.
     */
    private void jobEnvironment(AttemptKey key, Map<String, String> environment, Map<String, String> env,
            Path sandboxHome) throws StartFailedException {
        environment.keySet().removeIf(name -> !passed(name));
        try {
            if (sandboxHome != null) {
                // the agent's HOME, USER and TMPDIR are not the job's
                environment.keySet().removeAll(List.of("HOME", "USER", "LOGNAME", "TMPDIR", "SHELL"));
                environment.putIfAbsent("PATH", SANDBOX_PATH);
                environment.put("HOME", sandboxHome.toString());
                environment.put("TMPDIR", "/tmp");
            }
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
    }

    /** Refuses, as the job's failure, a command not found on the job's PATH or not executable by the job's user. */
    private static void requireStartable(AttemptKey key, String program, Map<String, String> environment,
            Path directory, Integer uid) throws CommandNotStartableException {
        Startable startable = uid == null
                ? findExecutable(program, environment.get("PATH"), directory).isPresent() ? Startable.YES : Startable.NOT_FOUND
                : Sandboxing.startableBy(program, environment.get("PATH"), directory, uid);
        if (startable != Startable.YES) {
            String path = environment.getOrDefault("PATH", DEFAULT_PATH);
            throw startable == Startable.NOT_FOUND
                    ? new CommandNotStartableException("attempt " + key + ": command not found: " + program + " (PATH="
                            + path + ")", CommandNotStartableException.NOT_FOUND)
                    : new CommandNotStartableException("attempt " + key + ": command not executable by the job's user"
                            + (uid == null ? "" : " (uid " + uid + ")") + ": " + program + " (PATH=" + path + ")",
                            CommandNotStartableException.NOT_EXECUTABLE);
        }
    }

    private Cgroups.AttemptCgroup cgroup(AttemptKey key, Cgroups.Limits limits) throws StartFailedException {
        try {
            return cgroups.create(key.fileName(), limits);
        } catch (IOException | RuntimeException e) {
            throw new StartFailedException("attempt " + key + ": cannot make its cgroup (" + cgroups.version() + " under "
                    + settings.cgroupParent() + "): " + e, e);
        }
    }

    /** Starts the process; a failure removes the cgroup made for it. */
    private static Process spawn(AttemptKey key, ProcessBuilder builder, String program, Cgroups.AttemptCgroup cgroup)
            throws StartFailedException {
        try {
            return builder.start();
        } catch (IOException e) {
            if (cgroup != null) {
                cgroup.remove();
            }
            String message = String.valueOf(e.getMessage());
            if (message.contains("error=7,") || message.contains("error: 7 (")) { // E2BIG: all of them together
                throw new CommandNotStartableException("attempt " + key + ": its command and environment are too long"
                        + " together for the machine's exec (E2BIG)", CommandNotStartableException.NOT_EXECUTABLE);
            }
            throw new StartFailedException("attempt " + key + ": cannot start " + program
                    + " (are setsid, unshare and setpriv, from util-linux, on the agent's PATH?): " + e.getMessage(), e);
        }
    }

    /**
     * Lets the process waiting at its gate go on: into its cgroup first, where there is one (from then on everything
     * the attempt forks is in it), with its OOM score; a sandbox without a cgroup opens at once. A failure kills it.
     */
    private void openGate(AttemptKey key, Process process, Cgroups.AttemptCgroup cgroup, Requested requested)
            throws StartFailedException {
        if (cgroup != null) {
            scoreForOom(process.pid(), requested);
        }
        try {
            if (cgroup != null) {
                cgroup.add(process.pid());
            }
            process.getOutputStream().write('\n');
            process.getOutputStream().flush();
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            process.onExit().join();
            if (cgroup != null) {
                cgroup.remove();
            }
            throw new StartFailedException("attempt " + key + ": cannot "
                    + (cgroup != null ? "put its process in its cgroup " + cgroup : "open its gate") + ": " + e, e);
        }
    }

    /** The attempt's first process (still at its gate) gets its OOM score, which everything it starts inherits. */
    private void scoreForOom(long pid, Requested requested) {
        long machine = machineMemoryBytes;
        if (machine <= 0 || requested == null || requested.memoryMb() == null) {
            return;
        }
        int adj = Cgroups.oomScoreAdj(requested.memoryMb() << 20, machine);
        try {
            Files.writeString(Path.of("/proc", Long.toString(pid), "oom_score_adj"), Integer.toString(adj));
        } catch (IOException e) {
            log.warn("cannot set the OOM score of attempt process {}: {}", pid, e.toString());
        }
    }

    /** What an OOM kill's report says: {@code used more than its 512 MiB (limit 576 MiB with headroom)}. */
    static String oomDetail(Requested requested, Cgroups.Limits limits) {
        if (limits == null || limits.memoryBytes() == null) {
            return "killed by the kernel's OOM killer";
        }
        return "used more than its " + requested.memoryMb() + " MiB (limit " + (limits.memoryBytes() >> 20)
                + " MiB with headroom)";
    }

    /** The next free uid of the range, round robin (so that a uid is reused as late as can be); null when none is. */
    private Integer takeUid() {
        for (int i = 0; i < settings.uidCount(); i++) {
            int uid = settings.firstUid() + Math.floorMod(nextUid - settings.firstUid() + i, settings.uidCount());
            if (uidsInUse.add(uid)) {
                nextUid = uid + 1;
                return uid;
            }
        }
        return null;
    }

    /** Whether a command can be started, as the shell would say it. */
    enum Startable { YES, NOT_FOUND, NOT_EXECUTABLE }

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
        if (cgroups != null) {
            // a process that left its group is still in its attempt's cgroup
            Set<String> mine = new HashSet<>();
            running.keySet().forEach(k -> mine.add(k.fileName()));
            for (Cgroups.AttemptCgroup cgroup : cgroups.existing()) {
                if (cgroup.directories().stream().noneMatch(d -> mine.contains(d.getFileName().toString()))) {
                    RunningAttempt.emptyAndRemove(cgroup);
                }
            }
        }
        return records.stream().map(PgidRecord::key).toList();
    }

    @Override
    public Optional<Path> logFile(AttemptKey key, LogStream stream) {
        Path file = attemptsDir.resolve(key.fileName())
                .resolve(stream == LogStream.STDOUT ? STDOUT : STDERR);
        return Files.isRegularFile(file) ? Optional.of(file) : Optional.empty();
    }

    /** Removes the directories of attempts that ended longer ago than the retention. */
    @Override
    public void housekeeping() {
        removeExpired(clock.instant());
    }

    /**
     * Removes {@code attempts/<jobId>-<attempt>/} of every attempt not running that ended before
     * {@code now - retention}: when this runner saw it end, else (a previous incarnation's) by the directory's
     * last change. Their logs' tails went with their final reports. Then, while the disk is below its reserve
     * ({@link DiskPressure}), those of the other ended attempts too, oldest first: what no one runs goes before
     * a running attempt is evicted.
     *
     * @return how many it removed
     */
    synchronized int removeExpired(Instant now) {
        if (!Files.isDirectory(attemptsDir)) {
            return 0;
        }
        Set<String> live = new HashSet<>();
        running.keySet().forEach(k -> live.add(k.fileName()));
        Instant before = now.minus(settings.retention());
        TreeMap<Instant, List<Path>> byEnd = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(attemptsDir)) {
            for (Path dir : entries) {
                String name = dir.getFileName().toString();
                if (!live.contains(name)) {
                    Instant end = ended.get(name);
                    byEnd.computeIfAbsent(end != null ? end
                            : Files.getLastModifiedTime(dir, LinkOption.NOFOLLOW_LINKS).toInstant(),
                            e -> new ArrayList<>()).add(dir);
                }
            }
        } catch (IOException e) {
            log.warn("cannot list {}: {}", attemptsDir, e.toString());
        }
        int expired = 0;
        int early = 0;
        ends:
        for (Map.Entry<Instant, List<Path>> entry : byEnd.entrySet()) {
            boolean past = entry.getKey().isBefore(before);
            for (Path dir : entry.getValue()) {
                if (!past && !disk.belowReserve(attemptsDir)) {
                    break ends; // the rest ended later still
                }
                if (removeEnded(dir)) {
                    if (past) {
                        expired++;
                    } else {
                        early++;
                    }
                }
            }
        }
        if (expired > 0) {
            log.info("removed the directories of {} attempts that ended before {}", expired, before);
        }
        if (early > 0) {
            log.warn("the disk of the attempts' directories is below its reserve: removed the directories of {} ended"
                    + " attempts before their retention", early);
        }
        return expired + early;
    }

    private Instant now() {
        return clock.instant();
    }

    private boolean removeEnded(Path dir) {
        try {
            deleteTree(dir);
            ended.remove(dir.getFileName().toString());
            return true;
        } catch (IOException | UncheckedIOException e) {
            log.warn("cannot remove the directory of ended attempt {}: {}", dir.getFileName(), e.toString());
            return false;
        }
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

    /**
     * The job's environment for the sandbox to read ({@link Sandbox#environmentFile}): root's alone from its creation
     * (created with its mode, never over a file already there), so that no one else may open it while it is written.
     */
    private static void writeEnvironment(AttemptKey key, Path file, Map<String, String> environment)
            throws StartFailedException {
        try (var out = Files.newByteChannel(file, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ByteBuffer bytes = ByteBuffer.wrap(Sandbox.environmentFile(environment));
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
        } catch (IOException e) {
            throw new StartFailedException("attempt " + key + ": cannot write its environment: " + e.getMessage(), e);
        }
    }

    private static void forgetEnvironment(Path file) {
        try {
            if (file != null) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            log.warn("cannot remove {}: {}", file, e.toString());
        }
    }

    /**
     * Removes a directory and all it holds, links not followed, with GNU {@code rm -rf --one-file-system}: it opens
     * each directory relative to its parent's descriptor, as a directory only and without following links, and
     * unlinks relative to it. A removal by path (the JVM's walk) could be led out of the tree: a process still
     * holding a descriptor to a directory in it (another attempt's, given one over a unix socket) swaps a directory
     * for a link to one outside while the walk is between listing and deleting, and root deletes what the link
     * reaches, or opens a FIFO swapped in and blocks there. The JVM's walk only where {@code rm} cannot be run.
     */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Process rm = new ProcessBuilder("rm", "-rf", "--one-file-system", "--", root.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!rm.waitFor(5, TimeUnit.MINUTES)) {
                rm.destroyForcibly();
            }
        } catch (IOException e) {
            log.warn("cannot run rm on {} ({}): removing it by path", root, e.toString());
            walkDeleting(root);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("rm -rf left " + root + " in place");
        }
    }

    private static void walkDeleting(Path root) throws IOException {
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

    /**
     * The longest string Linux passes to a program as one argument or one {@code NAME=VALUE}, its NUL included:
     * MAX_ARG_STRLEN, 128 KiB (what the API already holds each argument and value to: {@link ExecString}).
     */
    static final int MAX_EXEC_STRING_BYTES = ExecString.ARGUMENT_BYTES + 1;

    /**
     * Why exec would refuse this argv and environment whatever the machine (one string past
     * {@link #MAX_EXEC_STRING_BYTES} in UTF-8: E2BIG), or empty. The job's fault, like a command not found: an
     * attempt that failed for it as START_FAILED counted against its machine, and three such jobs drained it.
     */
    static Optional<String> tooLongForExec(List<String> argv, Map<String, String> environment) {
        for (String argument : argv) {
            long bytes = utf8Length(argument) + 1;
            if (bytes > MAX_EXEC_STRING_BYTES) {
                return Optional.of("an argument or variable of " + bytes + " bytes is too long for exec (at most "
                        + MAX_EXEC_STRING_BYTES + " bytes of UTF-8 each, its NUL included)");
            }
        }
        for (var variable : environment.entrySet()) {
            long bytes = utf8Length(variable.getKey()) + 1 + utf8Length(variable.getValue()) + 1;
            if (bytes > MAX_EXEC_STRING_BYTES) {
                return Optional.of("the variable " + variable.getKey() + " of " + bytes + " bytes is too long for exec"
                        + " (at most " + MAX_EXEC_STRING_BYTES + " bytes of UTF-8 each, its NUL included)");
            }
        }
        return Optional.empty();
    }

    private static long utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length; // as the JDK hands it to exec
    }
}
