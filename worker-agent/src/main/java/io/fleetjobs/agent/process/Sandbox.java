package io.fleetjobs.agent.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * How an attempt is held apart from the agent and from other attempts when the agent runs as root: the
 * command lines, as pure functions of the attempt's uid and sizes.
 *
 * <pre>
 *   JVM ─ setsid sh (GATE: waits for the agent's "go", sent once the agent has put it in the attempt's cgroup)
 *          └ exec unshare --pid --fork --kill-child --mount --ipc --mount-proc      (root, outside; pgid leader)
 *              └ sh (pid 1 of the new pid namespace): a private tmpfs on /tmp and /dev/shm
 *                  └ exec setpriv --reuid U --regid U --clear-groups, no capabilities, no new privileges
 *                      └ sh TIED_TO_AGENT (still pid 1, as uid U) ─ the job's argv, the watcher
 * </pre>
 *
 * <p>What holds: the job runs as a uid of its own, not the agent's, with no supplementary groups; it sees and
 * can signal only its own processes (its {@code /proc} is its namespace's, and {@code kill -9 -1} reaches no
 * one else); its {@code /tmp} is its own. The Java process is {@code unshare}, the leader of the process
 * group, so the agent's group kill, the pgid record and the restart cleanup work as without a sandbox, and
 * better: when pid 1 of the namespace (the tied shell) exits, or {@code unshare} is killed
 * ({@code --kill-child}), the kernel kills every process of the namespace, even one that left the group with
 * setsid.
 *
 * <p>GPUs: every {@code nvidia<N>} device node that is not one of the attempt's GPUs ({@link #otherGpus}) has
 * /dev/null bind-mounted over it in the attempt's mount namespace, before the uid is dropped, so that a job
 * that ignores {@code CUDA_VISIBLE_DEVICES} still cannot open another job's device. The control nodes
 * ({@code nvidiactl}, {@code nvidia-uvm}, {@code nvidia-caps}...) stay: every CUDA process needs them.
 *
 * @param uid      the attempt's uid, also its gid
 * @param tmpBytes the size of its private /tmp (a tmpfs, counted in its cgroup's memory)
 * @param masked   the device nodes covered with /dev/null (the other GPUs')
 */
public record Sandbox(int uid, long tmpBytes, List<Path> masked) {
    /** A GPU's device node, {@code nvidia<minor>}. */
    private static final Pattern GPU_NODE = Pattern.compile("nvidia([0-9]{1,6})");

    public Sandbox(int uid, long tmpBytes) {
        this(uid, tmpBytes, List.of());
    }

    public Sandbox {
        masked = masked == null ? List.of() : List.copyOf(masked);
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

    /** The argv of the process the agent starts: {@code setsid sh -c ...} with the job's argv at the end. */
    List<String> argv(List<String> command) {
        String outer = String.join("\n",
                GATE,
                "inner=$1; shift",
                "exec unshare --pid --fork --kill-child --mount --ipc --mount-proc --propagation private"
                        + " -- sh -c \"$inner\" fleetjobs-sandbox \"$@\"");
        String inner = String.join("\n",
                "tied=$1; shift",
                "mount -t tmpfs -o size=" + tmpBytes + ",mode=1777,nosuid,nodev fleetjobs-tmp /tmp || exit 125",
                "mount -t tmpfs -o size=" + tmpBytes + ",mode=1777,nosuid,nodev fleetjobs-shm /dev/shm 2>/dev/null",
                masks(),
                "exec setpriv --reuid=" + uid + " --regid=" + uid + " --clear-groups --inh-caps=-all"
                        + " --bounding-set=-all --no-new-privs -- sh -c \"$tied\" fleetjobs-attempt \"$@\"");
        List<String> argv = new ArrayList<>(command.size() + 8);
        argv.addAll(List.of("setsid", "sh", "-c", outer, "fleetjobs-gate", inner, ProcessRunner.TIED_TO_AGENT));
        argv.addAll(command);
        return argv;
    }

    /** One line per masked node; a mount that fails ends the start (fail closed: no job sees a GPU not its own). */
    private String masks() {
        StringBuilder lines = new StringBuilder(":");
        for (Path node : masked) {
            lines.append("\nmount --bind /dev/null ").append(quoted(node.toString())).append(" || exit 125");
        }
        return lines.toString();
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
