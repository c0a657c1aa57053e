package io.fleetjobs.agent.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * How an attempt is held apart from the agent and from other attempts when the agent runs as root: the
 * command lines, as pure functions of the attempt's uid and sizes.
 *
 * <pre>
 *   JVM ─ setsid sh (GATE: waits for the agent's "go", sent once the agent has put it in the attempt's cgroup;
 *          │          root, outside; pgid leader; waits for unshare and exits with its status)
 *          ├ sh (ROOT_WATCHER: the lifeline's end kills the group, and so the namespace)
 *          └ unshare --pid --fork --kill-child --mount --ipc --mount-proc            (root, outside)
 *                   [--net, for a network of its own: only its loopback, brought up first]
 *              └ sh (pid 1 of the new pid namespace): the machine's file systems read-only but for the
 *                  working directory, a private tmpfs on /tmp and /dev/shm
 *                  ├ sh (root, for a moment): once pid 1 is in its user namespace, maps every uid and gid to itself
 *                  └ exec perl: as uid U (its owner), a user namespace of the attempt's own (unless jobs may create
 *                      them), whose max_user_namespaces it sets to 0 once mapped; a new session keyring joined
 *                      └ exec setpriv --reuid U --regid U --clear-groups, no capabilities, no new privileges
 *                          └ env -i NAME=VALUE... (the job's environment, from here on only)
 *                              └ /bin/sh TIED_TO_AGENT (still pid 1, as uid U) ─ the job's argv, the watcher
 *
 *   Everything above env runs as root in the agent's fixed environment ({@link #ROOT_ENVIRONMENT}), never the
 *   job's: a job's PATH or LD_PRELOAD naming files a job wrote would otherwise run them as root.
 * </pre>
 *
 * <p>What holds: the job runs as a uid of its own, not the agent's, with no supplementary groups; it sees and
 * can signal only its own processes (its {@code /proc} is its namespace's, and {@code kill -9 -1} reaches no
 * one else); its {@code /tmp} is its own. It writes nowhere else on the machine: every file system the agent sees
 * is read-only in the attempt's mount namespace (but {@code /proc}, {@code /sys}, {@code /dev} and
 * {@code /dev/pts}), its working directory bind-mounted over itself read-write first, so that a job can neither fill
 * the machine's disk past its directory's cap nor leave files in a world-writable directory such as
 * {@code /var/tmp} for another job to read or trip over. The Java process is the gate's shell, root, the leader of
 * the process group, so the agent's group kill, the pgid record and the restart cleanup work as without a sandbox,
 * and better: a group kill from outside reaches pid 1 of the namespace, and when pid 1 (the tied shell) dies, the
 * kernel kills every process of the namespace, even one that left the group with setsid. The gate's
 * {@link #ROOT_WATCHER} does that when the agent dies, out of the job's reach.
 *
 * <p>GPUs: every {@code nvidia<N>} device node that is not one of the attempt's GPUs ({@link #otherGpus}) has
 * /dev/null bind-mounted over it in the attempt's mount namespace, before the uid is dropped, so that a job
 * that ignores {@code CUDA_VISIBLE_DEVICES} still cannot open another job's device. The control nodes
 * ({@code nvidiactl}, {@code nvidia-uvm}, {@code nvidia-caps}...) stay: every CUDA process needs them.
 *
 * <p>User namespaces: a job may not create one of its own ({@code unshare -r}), where it would be root, mount file
 * systems and reach kernel code that an unprivileged process never reaches (Docker's default seccomp profile denies
 * them for the same reason). The attempt runs in a user namespace of its own, in which every uid maps to itself
 * (so files, uids and devices look as without it), and whose {@code max_user_namespaces} is 0: a namespace's limits
 * hold for all of its descendants, and only a process with {@code CAP_SYS_RESOURCE} in the namespace may raise it,
 * which the job never has. Pid 1 creates it with the attempt's uid as its effective one, so that the namespace's
 * owner is that uid: what the kernel counts per user in a namespace (inotify instances and watches, namespaces) is
 * charged in the machine's namespace to the owner, and a namespace root owned would have all attempts share root's
 * counts with the machine's own services (one job's 128 inotify instances left root's none). Only a process outside
 * may write its maps, so a helper forked before does, once pid 1 has opened the FIFO, which it does only from inside.
 * The mounts above are made before, as root of the machine, in the machine's namespace.
 *
 * <p>Keys: a process inherits its parent's session keyring, and an agent started by systemd or a container runtime
 * has one of its own; every attempt would share it, and any job could read the keys another tenant's job put there
 * ({@code keyctl add user ... @s}), across uids and user namespaces. So each attempt joins a new, empty session
 * keyring before the uid is dropped (perl's {@code syscall}, as util-linux has no keyctl). Its user keyring is its
 * uid's, which a later attempt given the same uid would find: the user namespace of its own holds that one apart
 * (user keyrings are kept per user namespace).
 *
 * @param uid      the attempt's uid, also its gid
 * @param tmpBytes the size of its private /tmp (a tmpfs, counted in its cgroup's memory)
 * @param masked   the device nodes covered with /dev/null (the other GPUs')
 * @param work     the attempt's working directory, the one place of the machine's file systems it may write; null
 *                 for none (the probe)
 * @param readOnly the mount points made read-only ({@link #writableMounts}); empty where the machine does not allow it
 * @param hardening the steps beyond the base that this machine allows ({@link Hardening})
 * @param ownNetwork a network namespace of the attempt's own, in which only its loopback is up: it reaches nothing
 *                  beyond itself and nothing reaches it ({@code execution.network} none)
 */
public record Sandbox(int uid, long tmpBytes, List<Path> masked, Path work, List<Path> readOnly,
        Set<Hardening> hardening, boolean ownNetwork) {
    /** What a sandbox does beyond its base where the machine allows it; the probe at the agent's start finds which. */
    public enum Hardening {
        /** A user namespace of the attempt's own, in which it can create none. */
        OWN_USER_NAMESPACE("jobs may create user namespaces where the machine allows them, and an attempt finds the"
                + " keys an earlier attempt of its uid left in its user keyring"),
        /** A new session keyring, not the agent's. */
        OWN_SESSION_KEYRING("attempts share the agent's session keyring, where one job may read the keys another put");

        private final String without;

        Hardening(String without) {
            this.without = without;
        }

        /** What is not held without this step (for the agent's warning at start). */
        public String without() {
            return without;
        }

        /** Every step this machine's architecture and programs could take (not yet probed): perl makes them all. */
        public static Set<Hardening> candidates() {
            return SYSCALLS.isPresent() && Files.isExecutable(Path.of("/usr/bin/perl"))
                    ? EnumSet.allOf(Hardening.class) : Set.of();
        }
    }

    /** The numbers of the system calls the steps make, on one architecture. */
    record Syscalls(int keyctl, int unshare) {
    }

    /** The system calls' numbers on this machine's architecture; empty where they are not known here. */
    static final Optional<Syscalls> SYSCALLS = switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> Optional.of(new Syscalls(250, 272));
        case "aarch64", "arm64" -> Optional.of(new Syscalls(219, 97));
        default -> Optional.empty();
    };

    /** A GPU's device node, {@code nvidia<minor>}. */
    private static final Pattern GPU_NODE = Pattern.compile("nvidia([0-9]{1,6})");

    /** Mount points left writable (by their files' modes): the kernel's views and the devices jobs write to. */
    private static final Set<String> LEFT_WRITABLE = Set.of("/dev", "/dev/pts");

    public Sandbox(int uid, long tmpBytes) {
        this(uid, tmpBytes, List.of());
    }

    public Sandbox(int uid, long tmpBytes, List<Path> masked) {
        this(uid, tmpBytes, masked, null, List.of(), Hardening.candidates());
    }

    /** On the machine's network. */
    public Sandbox(int uid, long tmpBytes, List<Path> masked, Path work, List<Path> readOnly, Set<Hardening> hardening) {
        this(uid, tmpBytes, masked, work, readOnly, hardening, false);
    }

    public Sandbox {
        masked = masked == null ? List.of() : List.copyOf(masked);
        readOnly = readOnly == null ? List.of() : List.copyOf(readOnly);
        hardening = hardening == null || hardening.isEmpty() ? Set.of() : Collections.unmodifiableSet(
                EnumSet.copyOf(hardening));
        if (uid <= 0) {
            throw new IllegalArgumentException("an attempt's uid must not be root: " + uid);
        }
        if (tmpBytes <= 0) {
            throw new IllegalArgumentException("the size of /tmp must be positive: " + tmpBytes);
        }
    }

    /**
     * The first line of each attempt that has a cgroup: the process waits for the agent's line on its
     * standard input (the lifeline pipe), which the agent sends after it has moved the process into the
     * cgroup, so that nothing of the job runs outside it. End of file (the agent died first) ends it.
     */
    static final String GATE = "read -r _ || exit 125";

    /**
     * Root's watch on the lifeline, outside the attempt's namespaces: at its end of file (the agent died) it kills
     * the process group, pid 1 of the attempt's pid namespace with it, and the kernel then kills every process of
     * that namespace. The tied shell inside (pid 1) watches the lifeline too, but only as the job's uid, in the job's
     * namespace: a job may kill that watcher, and one that left the group (setsid) is out of its reach, while pid 1,
     * which the kernel shields from signals sent inside its namespace, waits for it. {@code unshare --kill-child}
     * does not reach it either: the parent-death signal is cleared when pid 1 drops to the job's uid. Ignores TERM,
     * INT and HUP (the agent's stop sends TERM to the group), and is killed by the gate once the attempt has ended.
     */
    static final String ROOT_WATCHER = "trap '' TERM INT HUP; ( read -r _ <&3; kill -KILL 0 ) & watcher=$!";

    /**
     * The whole environment of the part of the start that runs as root: a search path of root's directories
     * only. The job's own environment is handed over as {@code env -i} arguments, after the uid is dropped.
     */
    static final Map<String, String> ROOT_ENVIRONMENT = Map.of("PATH",
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");

    /**
     * In a network namespace of its own, the loopback starts down: brought up (iproute2's {@code ip}, as root of the
     * namespace, before anything of the job runs), so that the job's processes still talk to each other over it.
     */
    static final String LOOPBACK_UP = "ip link set lo up || { echo 'fleetjobs: cannot bring up the loopback of the"
            + " network of the attempt: is ip, from iproute2, on the PATH of the agent?' >&2; exit 125; }";

    /** As {@link #argv(List, java.util.Map)} with an empty environment. */
    List<String> argv(List<String> command) {
        return argv(command, Map.of());
    }

    private static final String PERL = "/usr/bin/perl";

    /** Whether the job's environment can reach it from a file ({@link #argv(List, Map, Path)}): perl reads it. */
    static final boolean ENVIRONMENT_BY_FILE = Files.isExecutable(Path.of(PERL));

    /**
     * The job's environment as the file {@link #argv(List, Map, Path)} hands over: {@code NAME=VALUE}, each ended by
     * NUL.
     *
     * @throws IllegalArgumentException for a name that is empty or holds {@code =} or NUL, or a value with NUL
     */
    static byte[] environmentFile(Map<String, String> environment) {
        StringBuilder text = new StringBuilder();
        new TreeMap<>(environment).forEach((name, value) -> text.append(variable(name, value)).append('\0'));
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String variable(String name, String value) {
        if (name.isEmpty() || name.contains("=") || name.indexOf('\0') >= 0 || value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not an environment variable: " + name);
        }
        return name + "=" + value;
    }

    /**
     * Reads the job's environment from descriptor 4 (root opened the file, which only root may read, and removed it,
     * before the machine's file systems turned read-only and the uid was dropped) as the job's uid, closes it, and
     * runs the rest with that environment alone.
     */
    private static final String ENVIRONMENT_LOADER = "open(my $e, '<&=', 4) or exit 125; local $/ = \"\\0\"; %ENV = ();"
            + " while (defined(my $kv = <$e>)) { chomp $kv; my ($k, $v) = split(/=/, $kv, 2); $ENV{$k} = $v; }"
            + " close $e; exec { $ARGV[0] } @ARGV or exit 127;";

    /**
     * As {@link #argv(List, Map)}, the job's environment not among the arguments but in {@code environmentFile} (written
     * by the agent from {@link #environmentFile}, root's alone): a process's arguments are anyone's to read
     * ({@code /proc/<pid>/cmdline}, {@code ps}, the audit log of execs), and the root processes of the start live as
     * long as the attempt, so a tenant's secrets passed as {@code NAME=VALUE} arguments were readable by every user of
     * the machine. Null: as arguments (a machine without perl).
     */
    List<String> argv(List<String> command, Map<String, String> environment, Path environmentFile) {
        if (environmentFile == null) {
            return argv(command, environment);
        }
        environmentFile(environment); // checked as the arguments would be
        return argv(command, environment, environmentFile.toString());
    }

    /**
     * The argv of the process the agent starts ({@code setsid sh -c ...}, run in {@link #ROOT_ENVIRONMENT}): the
     * job's environment as {@code NAME=VALUE} arguments of {@code env -i}, then the tied shell and the job's argv.
     *
     * @throws IllegalArgumentException for a name that is empty or holds {@code =} or NUL, or a value with NUL
     */
    List<String> argv(List<String> command, Map<String, String> environment) {
        return argv(command, environment, (String) null);
    }

    private List<String> argv(List<String> command, Map<String, String> environment, String environmentFile) {
        boolean byFile = environmentFile != null;
        String outer = String.join("\n",
                GATE,
                "inner=$1; shift",
                "exec 3<&0",
                ROOT_WATCHER, // forked while TERM is ignored, so that a TERM before it runs cannot end it
                "trap : TERM INT HUP", // outlasts the group's TERM: waits for unshare, as the tied shell for the job
                "exec 3<&-",
                // in the foreground: a background command of a shell without job control ignores INT and QUIT for
                // good, and passes that on to the job (ProcessRunner.TIED_TO_AGENT)
                "unshare --pid --fork --kill-child --mount --ipc --mount-proc --propagation private"
                        + (ownNetwork ? " --net" : "") + " -- sh -c \"$inner\" fleetjobs-sandbox \"$@\"",
                "status=$?",
                "kill -KILL \"$watcher\" 2>/dev/null",
                "exit \"$status\"");
        String inner = String.join("\n",
                (byFile ? "command exec 4<\"$1\" && rm -f -- \"$1\" && shift || exit 125\n" : "") + (ownNetwork ? LOOPBACK_UP + "\n" : "") + readOnlyMachine(),
                "mount -t tmpfs -o size=" + tmpBytes + ",mode=1777,nosuid,nodev fleetjobs-tmp /tmp || exit 125",
                "mount -t tmpfs -o size=" + tmpBytes + ",mode=1777,nosuid,nodev fleetjobs-shm /dev/shm 2>/dev/null",
                masks(),
                dropToJob(byFile));
        List<String> argv = new ArrayList<>(command.size() + environment.size() + 12);
        argv.addAll(List.of("setsid", "sh", "-c", outer, "fleetjobs-gate", inner));
        if (byFile) {
            argv.add(environmentFile);
        } else {
            new TreeMap<>(environment).forEach((name, value) -> argv.add(variable(name, value)));
        }
        argv.addAll(List.of("/bin/sh", "-c", ProcessRunner.TIED_TO_AGENT, "fleetjobs-attempt"));
        argv.addAll(command);
        return argv;
    }

    /**
     * The last of root's part: the steps beyond the base ({@link Hardening}, in perl, which can make the system calls
     * that util-linux has no command for), then the uid dropped, no capabilities left, the job's environment and argv.
     */
    private String dropToJob(boolean environmentByFile) {
        String setpriv = "setpriv --reuid=" + uid + " --regid=" + uid + " --clear-groups --inh-caps=-all"
                + " --bounding-set=-all --no-new-privs -- " + (environmentByFile
                        ? PERL + " -e " + quoted(ENVIRONMENT_LOADER) + " -- \"$@\""
                        : "env -i -- \"$@\"");
        if (hardening.isEmpty() || SYSCALLS.isEmpty()) {
            return "exec " + setpriv;
        }
        Syscalls calls = SYSCALLS.get();
        List<String> perl = new ArrayList<>();
        String shell = "";
        String arguments = "";
        if (hardening.contains(Hardening.OWN_USER_NAMESPACE)) {
            shell = String.join("\n",
                    "mkfifo -m 600 " + MAPPED + " && chown " + uid + " " + MAPPED + " || exit 125",
                    "{ echo '0 0 4294967295' > /proc/1/uid_map && echo '0 0 4294967295' > /proc/1/gid_map && echo mapped; }"
                            + " > " + MAPPED + " &", "");
            arguments = " " + uid + " " + MAPPED;
            perl.addAll(List.of(
                    "my ($u, $fifo) = splice(@ARGV, 0, 2);",
                    // the namespace's owner is the job's uid, whose counts (inotify instances, namespaces) it is
                    // charged to, not root's, which every attempt would then share with the machine's own services
                    "$> = $u; $> == $u or exit 125;",
                    "syscall(" + calls.unshare() + ", 0x10000000) == 0 or exit 125;",
                    "open(my $f, \"<\", $fifo) or exit 125; defined(<$f>) or exit 125; close $f; unlink $fifo;",
                    "open(my $m, \">\", \"/proc/sys/user/max_user_namespaces\") or exit 125;"
                            + " print $m \"0\\n\" or exit 125; close $m or exit 125;"));
        }
        if (hardening.contains(Hardening.OWN_SESSION_KEYRING)) {
            // keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL): a new anonymous keyring
            perl.add("syscall(" + calls.keyctl() + ", 1, 0) > 0 or exit 125;");
        }
        perl.add("$> = 0; $> == 0 or exit 125; exec { $ARGV[0] } @ARGV or exit 127;");
        return shell + "exec perl -e " + quoted(String.join(" ", perl)) + " --" + arguments + " " + setpriv;
    }

    /** Where pid 1 waits for its user namespace's map; on the attempt's own /tmp, gone before the job starts. */
    private static final String MAPPED = "/tmp/.fleetjobs-mapped";

    /** One line per masked node; a mount that fails ends the start (fail closed: no job sees a GPU not its own). */
    private String masks() {
        StringBuilder lines = new StringBuilder(":");
        for (Path node : masked) {
            lines.append("\nmount --bind /dev/null ").append(quoted(node.toString())).append(" || exit 125");
        }
        return lines.toString();
    }

    /**
     * The working directory bind-mounted over itself (so that it stays writable), every other file system made
     * read-only, then the shell moves into the bind mount (its working directory was the path's directory on the
     * file system below, read-only now). Before the tmpfs on /tmp, so that a working directory under the machine's
     * /tmp stays reachable as the shell's. A step that fails ends the start (fail closed), but for a mount no
     * longer there.
     */
    private String readOnlyMachine() {
        StringBuilder lines = new StringBuilder(":");
        if (work != null) {
            lines.append("\nmount --bind ").append(quoted(work.toString())).append(' ').append(quoted(work.toString()))
                    .append(" || exit 125");
        }
        for (Path mount : readOnly) {
            String point = quoted(mount.toString());
            // the root must go read-only; another mount may have gone, or be hidden under a later one, since the
            // agent read the list: only one still mounted there and left writable ends the start
            lines.append("\nmount -o remount,bind,ro ").append(point).append(mount.getNameCount() == 0 ? " || exit 125"
                    : " 2>/dev/null || ! mountpoint -q " + point + " || exit 125");
        }
        if (work != null) {
            lines.append("\ncd ").append(quoted(work.toString())).append(" || exit 125");
        }
        return lines.toString();
    }

    /**
     * The mount points to make read-only for an attempt, from the lines of {@code /proc/self/mountinfo}: each
     * mounted read-write, but {@code /proc}, {@code /sys} and what is under them, {@code /dev} and {@code /dev/pts},
     * and those hidden by a later mount on the same path or on one of its parents (their path no longer reaches
     * them). In mount order.
     */
    static List<Path> writableMounts(List<String> mountinfo) {
        List<String> points = new ArrayList<>();
        List<Boolean> writable = new ArrayList<>();
        for (String line : mountinfo) {
            String[] fields = line.split(" ");
            if (fields.length < 6) {
                continue;
            }
            points.add(unescaped(fields[4]));
            writable.add(List.of(fields[5].split(",")).contains("rw"));
        }
        List<Path> result = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            String point = points.get(i);
            if (!writable.get(i) || LEFT_WRITABLE.contains(point) || under(point, "/proc") || under(point, "/sys")) {
                continue;
            }
            boolean hidden = false;
            for (int later = i + 1; later < points.size() && !hidden; later++) {
                hidden = under(point, points.get(later));
            }
            if (!hidden) {
                result.add(Path.of(point));
            }
        }
        return result;
    }

    /** Whether {@code path} is {@code dir} or under it. */
    private static boolean under(String path, String dir) {
        return path.equals(dir) || dir.equals("/") || path.startsWith(dir + "/");
    }

    /** A mount point as mountinfo writes it: space, tab, newline and backslash as octal escapes. */
    private static String unescaped(String field) {
        Matcher escape = Pattern.compile("\\\\([0-7]{3})").matcher(field);
        StringBuilder out = new StringBuilder();
        while (escape.find()) {
            escape.appendReplacement(out, Matcher.quoteReplacement(
                    String.valueOf((char) Integer.parseInt(escape.group(1), 8))));
        }
        return escape.appendTail(out).toString();
    }

    private static String quoted(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /**
     * The GPU device nodes of {@code names} (the entries of {@code deviceDir}) that are not the attempt's own, in
     * minor number order: {@code nvidia<N>} where N is not in {@code own}; nothing else ({@code nvidiactl},
     * {@code nvidia-uvm}, {@code nvidia-modeset}, {@code nvidia-caps}).
     */
    static List<Path> otherGpus(Path deviceDir, Collection<String> names, Collection<Integer> own) {
        Set<Integer> mine = Set.copyOf(own);
        return names.stream().map(GPU_NODE::matcher).filter(Matcher::matches)
                .filter(m -> !mine.contains(Integer.parseInt(m.group(1))))
                .sorted(Comparator.comparingInt(m -> Integer.parseInt(m.group(1))))
                .map(m -> deviceDir.resolve(m.group())).toList();
    }

    /** As {@link #otherGpus(Path, Collection, Collection)}, for what {@code deviceDir} holds now; none without it. */
    static List<Path> otherGpus(Path deviceDir, Collection<Integer> own) {
        try (Stream<Path> entries = Files.list(deviceDir)) {
            return otherGpus(deviceDir, entries.map(e -> e.getFileName().toString()).toList(), own);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the GPUs' device nodes in " + deviceDir, e);
        }
    }

    /** Without a sandbox, but with a cgroup: the gate, then the tied shell as today. */
    static List<String> gatedArgv(List<String> command) {
        List<String> argv = new ArrayList<>(command.size() + 6);
        argv.addAll(List.of("setsid", "sh", "-c", GATE + "\n" + ProcessRunner.TIED_TO_AGENT, "fleetjobs-attempt"));
        argv.addAll(command);
        return argv;
    }
}
