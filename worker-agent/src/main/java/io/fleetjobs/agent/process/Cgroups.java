package io.fleetjobs.agent.process;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cgroup per attempt, under one parent of the agent's ({@code <parent>/<jobId>-<attempt>}), on cgroup v2 where
 * the unified hierarchy has the memory controller (production), else on the v1 hierarchies of memory, cpu,
 * cpuacct and pids. Which one is read from {@code /proc/self/mountinfo} ({@link #detect}).
 *
 * <pre>
 *   limit          v1                                         v2
 *   memory         memory.limit_in_bytes (+ memsw, no swap)   memory.max, memory.swap.max = 0
 *   CPU            cpu.cfs_period_us, cpu.cfs_quota_us        cpu.max "quota period"
 *   processes      pids.max                                   pids.max
 *   accounting     cpuacct.usage (ns)                         cpu.stat usage_usec
 *   OOM kills      memory.oom_control oom_kill                memory.events oom_kill
 * </pre>
 *
 * <p>The agent's own process stays where it is, outside every attempt's cgroup: a job's memory is never
 * counted against the agent's, nor the agent's against a job's.
 */
public abstract sealed class Cgroups permits Cgroups.V1, Cgroups.V2 {
    private static final Logger log = LoggerFactory.getLogger(Cgroups.class);
    /** The CFS period: quotas are given per 100 ms. */
    static final long PERIOD_MICROS = 100_000;
    /** The kernel's smallest quota. */
    static final long MIN_QUOTA_MICROS = 1_000;

    final String parent;

    private Cgroups(String parent) {
        this.parent = parent;
    }

    /**
     * What one attempt may use; null for no limit.
     *
     * @param memoryBytes    the memory limit, headroom included
     * @param cpuQuotaMicros CPU time per {@link #PERIOD_MICROS}
     */
    public record Limits(Long memoryBytes, Long cpuQuotaMicros, Integer pidsMax) {
        /**
         * From what the job asked for: memory {@code memoryMb} plus a headroom of {@code headroomPercent} of it,
         * at least {@code minHeadroomMb} (the runtime's own pages, the shell); CPU as a CFS quota of
         * {@code cpuMillis / 1000} CPUs.
         */
        public static Limits of(Long cpuMillis, Long memoryMb, long minHeadroomMb, int headroomPercent, Integer pidsMax) {
            Long memory = memoryMb == null ? null
                    : (memoryMb + Math.max(minHeadroomMb, memoryMb * headroomPercent / 100)) << 20;
            Long quota = cpuMillis == null ? null : Math.max(MIN_QUOTA_MICROS, cpuMillis * PERIOD_MICROS / 1000);
            return new Limits(memory, quota, pidsMax);
        }

        /** The v2 {@code cpu.max} line. */
        String cpuMax() {
            return (cpuQuotaMicros == null ? "max" : Long.toString(cpuQuotaMicros)) + " " + PERIOD_MICROS;
        }
    }

    /** One attempt's cgroup. */
    public interface AttemptCgroup {
        /** Moves a process (and so all it forks from now on) into the cgroup. */
        void add(long pid) throws IOException;

        /** CPU time used so far, in nanoseconds. */
        OptionalLong cpuUsageNanos();

        /** How many times the OOM killer killed a process of the cgroup. */
        long oomKills();

        /** The processes in it now. */
        List<Long> pids();

        /** Removes the cgroup; it must have no process left. */
        void remove();

        /** Where it lives (one directory per hierarchy on v1). */
        List<Path> directories();
    }

    /** {@code "v1"} or {@code "v2"}. */
    public abstract String version();

    /** Makes the attempt's cgroup with its limits (whatever was there of that name is removed first). */
    public abstract AttemptCgroup create(String name, Limits limits) throws IOException;

    /**
     * Bounds the processes (and threads) of all this agent's attempts together: {@code pids.max} of the parent
     * they share. Each attempt has its own {@code pids.max}, but attempts of a few tenants together could
     * otherwise take every pid of the machine, and then neither the agent nor anyone's job could fork.
     */
    public abstract void limitAllAttempts(long pidsMax) throws IOException;

    /**
     * Bounds the memory of all this agent's attempts together: the parent's limit. Each attempt may use its
     * headroom above what it asked for, but many small attempts each using theirs would together take far more
     * than the machine offered (256 attempts of 1 MiB reach 16 GiB with the 64 MiB minimum headroom), and the
     * machine's OOM killer would then end the agent or anyone's job.
     */
    public abstract void limitAllAttemptsMemory(long bytes) throws IOException;

    /**
     * The {@code oom_score_adj} of an attempt's processes when all attempts together are limited to
     * {@code machineBytes}: 1000 less its request in thousandths of that limit. When the attempts together reach
     * it, the kernel ends the process with the largest resident memory plus this adjustment in those thousandths:
     * the limit less the request for each alike, so the one that uses most beyond what it asked for, never a job
     * within its request while another is over it. Positive, so that it needs no privilege to set (a negative
     * value needs CAP_SYS_RESOURCE), and in a machine-wide OOM attempts go before the agent; where the agent has
     * that capability, the value is also the least the job may lower it to.
     */
    static int oomScoreAdj(long requestBytes, long machineBytes) {
        if (requestBytes <= 0 || machineBytes <= 0) {
            return 0;
        }
        return (int) (1000 - Math.min(1000, Math.round(1000.0 * requestBytes / machineBytes)));
    }

    /**
     * The most processes all attempts together may have on a machine whose kernel allows {@code pidMax} pids and
     * {@code threadsMax} threads: all but a reserve for the agent and the rest of the machine (an eighth, at least
     * 4,096), and never fewer than 1,024.
     */
    static long pidsBudget(long pidMax, long threadsMax) {
        long machine = Math.min(pidMax, threadsMax);
        return Math.max(1024, machine - Math.max(4096, machine / 8));
    }

    /** {@link #pidsBudget} of this machine, from {@code /proc/sys/kernel}; empty when it cannot be read. */
    public static OptionalLong machinePidsBudget() {
        try {
            // by line: Files.readString gave the first byte alone of these files ("3" of 32768) on a 6.18 kernel
            long pidMax = Long.parseLong(Files.readAllLines(Path.of("/proc/sys/kernel/pid_max"), UTF_8).getFirst().strip());
            long threadsMax = Long.parseLong(Files.readAllLines(Path.of("/proc/sys/kernel/threads-max"), UTF_8).getFirst()
                    .strip());
            return OptionalLong.of(pidsBudget(pidMax, threadsMax));
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** The attempt cgroups under the parent, for an agent restart: what its previous incarnation left. */
    public abstract List<AttemptCgroup> existing();

    /**
     * The cgroup hierarchies of this machine, from {@code /proc/self/mountinfo}; empty when there is none the
     * agent can write (not root, no cgroup file system, a read-only mount).
     */
    public static Optional<Cgroups> detect(Path mountinfo, String parent) {
        try {
            return detect(Files.readAllLines(mountinfo, UTF_8), parent).filter(Cgroups::writable);
        } catch (IOException e) {
            log.warn("cannot read {}: {}", mountinfo, e.toString());
            return Optional.empty();
        }
    }

    /** Pure: chooses v2 when a cgroup2 mount offers the memory controller, else v1 with a memory hierarchy. */
    static Optional<Cgroups> detect(List<String> mountinfo, String parent) {
        Map<String, Path> v1 = new LinkedHashMap<>();
        for (String line : mountinfo) {
            Optional<Mount> mount = Mount.parse(line);
            if (mount.isEmpty() || mount.get().readOnly()) {
                continue;
            }
            Mount m = mount.get();
            if (m.fsType().equals("cgroup2") && controllers(m.point()).contains("memory")) {
                return Optional.of(new V2(parent, m.point()));
            }
            if (m.fsType().equals("cgroup")) {
                for (String option : m.superOptions().split(",")) {
                    if (List.of("memory", "cpu", "cpuacct", "pids").contains(option)) {
                        v1.putIfAbsent(option, m.point());
                    }
                }
            }
        }
        return v1.containsKey("memory") ? Optional.of(new V1(parent, v1)) : Optional.empty();
    }

    /** One line of mountinfo: {@code id parent major:minor root point options [tags] - fstype source superoptions}. */
    record Mount(Path point, boolean readOnly, String fsType, String superOptions) {
        static Optional<Mount> parse(String line) {
            int dash = line.indexOf(" - ");
            if (dash < 0) {
                return Optional.empty();
            }
            String[] left = line.substring(0, dash).split(" ");
            String[] right = line.substring(dash + 3).split(" ");
            if (left.length < 6 || right.length < 3) {
                return Optional.empty();
            }
            boolean ro = List.of(left[5].split(",")).contains("ro");
            return Optional.of(new Mount(Path.of(left[4].replace("\\040", " ")), ro, right[0], right[2]));
        }
    }

    private static Set<String> controllers(Path v2Root) {
        try {
            return Set.of(Files.readString(v2Root.resolve("cgroup.controllers"), UTF_8).strip().split("\\s+"));
        } catch (IOException | RuntimeException e) {
            return Set.of();
        }
    }

    private boolean writable() {
        for (Path root : roots()) {
            Path mine = root.resolve(parent);
            try {
                Files.createDirectories(mine);
            } catch (IOException e) {
                log.warn("cannot make the cgroup {}: {}", mine, e.toString());
                return false;
            }
            unlisted(root);
        }
        return true;
    }

    /**
     * Each level of the parent under {@code root} may be passed through but not listed (0711): an attempt reaches
     * its own cgroup (named in its {@code /proc/self/cgroup}; runtimes such as the JVM read their limits there),
     * but cannot list the others', whose names are other tenants' job ids and whose files their usage.
     */
    private void unlisted(Path root) {
        Path level = root;
        for (Path part : Path.of(parent)) {
            level = level.resolve(part);
            try {
                Files.setPosixFilePermissions(level, PosixFilePermissions.fromString("rwx--x--x"));
            } catch (IOException | UnsupportedOperationException e) {
                log.debug("cannot close {} to listing: {}", level, e.toString());
            }
        }
    }

    abstract List<Path> roots();

    static void write(Path file, String value) throws IOException {
        Files.writeString(file, value, UTF_8);
    }

    static Optional<String> read(Path file) {
        try {
            return Optional.of(Files.readString(file, UTF_8));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The value of {@code key} in a flat-keyed file ({@code key value} per line). */
    static OptionalLong keyed(String text, String key) {
        for (String line : text.split("\n")) {
            String[] parts = line.strip().split("\\s+");
            if (parts.length == 2 && parts[0].equals(key)) {
                try {
                    return OptionalLong.of(Long.parseLong(parts[1]));
                } catch (NumberFormatException e) {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }

    static List<Long> pidsIn(Path procs) {
        return read(procs).map(text -> text.lines().filter(l -> !l.isBlank()).map(l -> Long.parseLong(l.strip())).toList())
                .orElse(List.of());
    }

    static void removeDirectory(Path dir) {
        // a cgroup directory holds only kernel files: rmdir, not a recursive delete
        for (int i = 0; i < 50; i++) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (NoSuchFileException e) {
                return;
            } catch (IOException e) {
                // busy for a moment after its last process exited
                LockSupport.parkNanos(20_000_000L);
            }
        }
        log.warn("cannot remove the cgroup {}", dir);
    }

    static List<String> children(Path dir) {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, Files::isDirectory)) {
            entries.forEach(e -> names.add(e.getFileName().toString()));
        } catch (IOException e) {
            return List.of();
        }
        return names;
    }

    /** cgroup v1: one directory per hierarchy (memory, cpu, cpuacct, pids; cpu and cpuacct may share one). */
    static final class V1 extends Cgroups {
        private final Map<String, Path> mounts;

        V1(String parent, Map<String, Path> mounts) {
            super(parent);
            this.mounts = Map.copyOf(mounts);
        }

        @Override
        public String version() {
            return "v1";
        }

        @Override
        List<Path> roots() {
            return List.copyOf(new LinkedHashSet<>(mounts.values()));
        }

        private Optional<Path> dir(String controller, String name) {
            return Optional.ofNullable(mounts.get(controller)).map(root -> root.resolve(parent).resolve(name));
        }

        @Override
        public void limitAllAttempts(long pidsMax) throws IOException {
            limitParent("pids", "pids.max", pidsMax);
        }

        @Override
        public void limitAllAttemptsMemory(long bytes) throws IOException {
            limitParent("memory", "memory.limit_in_bytes", bytes);
        }

        /** Writes a limit of the parent in one controller's hierarchy, where this machine mounts it. */
        private void limitParent(String controller, String file, long value) throws IOException {
            Path root = mounts.get(controller);
            if (root != null) {
                write(Files.createDirectories(root.resolve(parent)).resolve(file), Long.toString(value));
            }
        }

        @Override
        public AttemptCgroup create(String name, Limits limits) throws IOException {
            Attempt cgroup = new Attempt(name);
            for (Path dir : cgroup.directories()) {
                Files.createDirectories(dir);
            }
            Optional<Path> memory = dir("memory", name);
            if (limits.memoryBytes() != null && memory.isPresent()) {
                write(memory.get().resolve("memory.limit_in_bytes"), Long.toString(limits.memoryBytes()));
                Path memsw = memory.get().resolve("memory.memsw.limit_in_bytes");
                if (Files.exists(memsw)) {
                    try {
                        write(memsw, Long.toString(limits.memoryBytes())); // no swap beyond the limit
                    } catch (IOException e) {
                        log.debug("cannot limit swap in {}: {}", memsw, e.toString());
                    }
                }
            }
            Optional<Path> cpu = dir("cpu", name);
            if (limits.cpuQuotaMicros() != null && cpu.isPresent()) {
                write(cpu.get().resolve("cpu.cfs_period_us"), Long.toString(PERIOD_MICROS));
                write(cpu.get().resolve("cpu.cfs_quota_us"), Long.toString(limits.cpuQuotaMicros()));
            }
            Optional<Path> pids = dir("pids", name);
            if (limits.pidsMax() != null && pids.isPresent()) {
                write(pids.get().resolve("pids.max"), Long.toString(limits.pidsMax()));
            }
            return cgroup;
        }

        @Override
        public List<AttemptCgroup> existing() {
            Set<String> names = new LinkedHashSet<>();
            for (Path root : roots()) {
                names.addAll(children(root.resolve(parent)));
            }
            return names.stream().<AttemptCgroup>map(Attempt::new).toList();
        }

        private final class Attempt implements AttemptCgroup {
            private final String name;

            Attempt(String name) {
                this.name = name;
            }

            @Override
            public List<Path> directories() {
                return roots().stream().map(root -> root.resolve(parent).resolve(name)).toList();
            }

            @Override
            public void add(long pid) throws IOException {
                for (Path dir : directories()) {
                    write(dir.resolve("cgroup.procs"), Long.toString(pid));
                }
            }

            @Override
            public OptionalLong cpuUsageNanos() {
                return dir("cpuacct", name).flatMap(d -> read(d.resolve("cpuacct.usage")))
                        .map(text -> OptionalLong.of(Long.parseLong(text.strip()))).orElse(OptionalLong.empty());
            }

            @Override
            public long oomKills() {
                return dir("memory", name).flatMap(d -> read(d.resolve("memory.oom_control")))
                        .map(text -> keyed(text, "oom_kill").orElse(0)).orElse(0L);
            }

            @Override
            public List<Long> pids() {
                Set<Long> all = new LinkedHashSet<>();
                directories().forEach(dir -> all.addAll(pidsIn(dir.resolve("cgroup.procs"))));
                return List.copyOf(all);
            }

            @Override
            public void remove() {
                directories().forEach(Cgroups::removeDirectory);
            }

            @Override
            public String toString() {
                return "cgroup v1 " + parent + "/" + name;
            }
        }
    }

    /** cgroup v2: one directory; the parent delegates memory, cpu and pids to its children. */
    static final class V2 extends Cgroups {
        private final Path root;

        V2(String parent, Path root) {
            super(parent);
            this.root = root;
        }

        @Override
        public String version() {
            return "v2";
        }

        @Override
        List<Path> roots() {
            return List.of(root);
        }

        @Override
        public void limitAllAttempts(long pidsMax) throws IOException {
            Path dir = parentDelegating();
            if (Files.exists(dir.resolve("pids.max"))) {
                write(dir.resolve("pids.max"), Long.toString(pidsMax));
            }
        }

        @Override
        public void limitAllAttemptsMemory(long bytes) throws IOException {
            write(parentDelegating().resolve("memory.max"), Long.toString(bytes));
        }

        /** The parent, each level from the root down to it handing the controllers on to its children. */
        private Path parentDelegating() throws IOException {
            Path level = root;
            delegateFromTheRoot();
            for (Path part : Path.of(parent)) {
                enable(level);
                level = level.resolve(part);
                Files.createDirectories(level);
            }
            enable(level);
            return level;
        }

        @Override
        public AttemptCgroup create(String name, Limits limits) throws IOException {
            Path dir = parentDelegating().resolve(name);
            Files.createDirectories(dir);
            if (limits.memoryBytes() != null) {
                write(dir.resolve("memory.max"), Long.toString(limits.memoryBytes()));
                if (Files.exists(dir.resolve("memory.swap.max"))) {
                    write(dir.resolve("memory.swap.max"), "0");
                }
            }
            if (limits.cpuQuotaMicros() != null) {
                write(dir.resolve("cpu.max"), limits.cpuMax());
            }
            if (limits.pidsMax() != null) {
                write(dir.resolve("pids.max"), Long.toString(limits.pidsMax()));
            }
            return new Attempt(dir);
        }

        /**
         * In a container with a cgroup namespace the agent sits in the root of its tree, and a cgroup that holds
         * processes cannot hand controllers to children ("no internal processes"): the processes there (the
         * agent, its init) move to a leaf of their own, {@code fleetjobs-agent-self}, first. The agent stays
         * outside every attempt's cgroup.
         */
        private void delegateFromTheRoot() {
            Path control = root.resolve("cgroup.subtree_control");
            if (read(control).map(text -> text.contains("memory")).orElse(true)) {
                return;
            }
            if (!read(Path.of("/proc/self/cgroup")).map(text -> text.strip().equals("0::/")).orElse(false)) {
                return; // not at the root of a namespaced tree: nothing of ours to move
            }
            try {
                Path self = Files.createDirectories(root.resolve("fleetjobs-agent-self"));
                for (long pid : pidsIn(root.resolve("cgroup.procs"))) {
                    try {
                        write(self.resolve("cgroup.procs"), Long.toString(pid));
                    } catch (IOException e) {
                        log.debug("cannot move {} out of the cgroup root: {}", pid, e.toString());
                    }
                }
                log.info("moved the agent's processes into {} so that the cgroup root can delegate to attempts", self);
            } catch (IOException e) {
                log.warn("cannot make a leaf for the agent's processes in {}: {}", root, e.toString());
            }
        }

        private static void enable(Path dir) {
            try {
                write(dir.resolve("cgroup.subtree_control"), "+memory +cpu +pids");
            } catch (IOException e) {
                // the root of a delegated tree that still holds processes cannot delegate; the parent below it can
                log.debug("cannot delegate controllers in {}: {}", dir, e.toString());
            }
        }

        @Override
        public List<AttemptCgroup> existing() {
            Path mine = root.resolve(parent);
            return children(mine).stream().<AttemptCgroup>map(name -> new Attempt(mine.resolve(name))).toList();
        }

        private record Attempt(Path dir) implements AttemptCgroup {
            @Override
            public List<Path> directories() {
                return List.of(dir);
            }

            @Override
            public void add(long pid) throws IOException {
                write(dir.resolve("cgroup.procs"), Long.toString(pid));
            }

            @Override
            public OptionalLong cpuUsageNanos() {
                return read(dir.resolve("cpu.stat")).map(text -> keyed(text, "usage_usec"))
                        .filter(OptionalLong::isPresent).map(v -> OptionalLong.of(v.getAsLong() * 1000))
                        .orElse(OptionalLong.empty());
            }

            @Override
            public long oomKills() {
                return read(dir.resolve("memory.events")).map(text -> keyed(text, "oom_kill").orElse(0)).orElse(0L);
            }

            @Override
            public List<Long> pids() {
                return pidsIn(dir.resolve("cgroup.procs"));
            }

            @Override
            public void remove() {
                removeDirectory(dir);
            }
        }
    }
}
