package io.fleetjobs.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Small process and port helpers for the launcher (Linux first; elsewhere what Java offers). */
final class Processes {
    private static final Duration POLL = Duration.ofMillis(100);

    private Processes() {
    }

    /** {@code setsid} as a launch prefix where it exists: the child leads a session of its own, out of the terminal's reach. */
    static List<String> ownSessionPrefix() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, "setsid");
            if (Files.isExecutable(candidate)) {
                return List.of(candidate.toString());
            }
        }
        return List.of();
    }

    /** The java launcher of this JVM's runtime. */
    static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Whether nothing listens on the port, on any address. */
    static boolean portFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The port itself when free, else one the system picks. */
    static int preferredOrFree(int port) {
        return port > 0 && portFree(port) ? port : KafkaProcess.freePort();
    }

    /** SIGTERM to each, up to {@code grace} for all to go, then SIGKILL to what is left. @return how many were alive */
    static int terminate(Collection<ProcessHandle> processes, Duration grace) {
        List<ProcessHandle> alive = processes.stream().filter(ProcessHandle::isAlive).toList();
        alive.forEach(ProcessHandle::destroy);
        if (!awaitGone(alive, grace)) {
            alive.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
            awaitGone(alive, Duration.ofSeconds(10));
        }
        return alive.size();
    }

    /** SIGKILL to each, and a short wait for them to go. */
    static void kill(Collection<ProcessHandle> processes) {
        processes.forEach(ProcessHandle::destroyForcibly);
        awaitGone(processes, Duration.ofSeconds(10));
    }

    static boolean awaitGone(Collection<ProcessHandle> processes, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (processes.stream().noneMatch(Processes::aliveNotZombie)) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            pause(POLL);
        }
    }

    /**
     * Alive. A child of this JVM is gone once reaped (its zombie state is no proof: a multi-threaded process's
     * leader turns zombie while its other threads still exit, holding its files and ports). Any other process
     * is gone once a zombie, as it may never be reaped where its new parent does not reap orphans.
     */
    static boolean aliveNotZombie(ProcessHandle p) {
        if (!p.isAlive()) {
            return false;
        }
        boolean child = p.parent().map(parent -> parent.pid() == ProcessHandle.current().pid()).orElse(false);
        return child || stat(p.pid()).map(s -> !s.gone()).orElse(true);
    }

    /** What procfs says of one process: its state, process group and start time in clock ticks since boot. */
    record Stat(char state, long pgrp, long startTicks) {
        boolean gone() {
            return state == 'Z' || state == 'X';
        }
    }

    static Optional<Stat> stat(long pid) {
        try {
            String line = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
            // pid (comm) state ppid pgrp session ... starttime is the 22nd field; comm may hold spaces and parens
            String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
            return Optional.of(new Stat(fields[0].charAt(0), Long.parseLong(fields[2]), Long.parseLong(fields[19])));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The live processes of a process group (procfs). */
    static List<ProcessHandle> groupMembers(long pgid) {
        List<ProcessHandle> members = new ArrayList<>();
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            entries.map(p -> p.getFileName().toString()).filter(n -> !n.isEmpty() && n.chars().allMatch(Character::isDigit))
                    .mapToLong(Long::parseLong)
                    .forEach(pid -> stat(pid).filter(s -> s.pgrp() == pgid && !s.gone())
                            .flatMap(s -> ProcessHandle.of(pid)).ifPresent(members::add));
        } catch (IOException | UncheckedIOException e) {
            // no procfs: nothing to find
        }
        return members;
    }

    /** This boot's id, so that a record from before a reboot is never taken for a live process. */
    static Optional<String> bootId() {
        try {
            // by line: Files.readString gave the first byte alone of /proc/sys files on a 6.18 kernel
            return Files.readAllLines(Path.of("/proc/sys/kernel/random/boot_id")).stream().findFirst().map(String::strip)
                    .filter(s -> !s.isEmpty());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** A JVM's unified-logging line of the class-data sharing tags, or a stack frame: noise in a failure's summary. */
    private static final Pattern NOISE =
            Pattern.compile("^\\[[^]]*]\\[\\w+ *]\\[cds[^]]*].*|^\\s+at .*|^\\s+\\.\\.\\. \\d+ (more|common frames omitted)$");

    /**
     * What a person needs to see of a process that failed to start, from what it printed: the root cause (the
     * last {@code Caused by:} of the last stack trace, or else the last line that names an exception), Spring
     * Boot's failure analysis when it printed one, then its last {@code lines} lines without stack frames.
     */
    static String startFailure(String output, int lines) {
        List<String> all = output.lines().filter(l -> !NOISE.matcher(l).matches() && !l.isBlank()).toList();
        StringBuilder out = new StringBuilder();
        String cause = null;
        for (String line : all) {
            if (line.startsWith("Caused by: ")) {
                cause = line.substring("Caused by: ".length());
            } else if (cause == null && line.matches("^[\\w.$]+(Exception|Error)(: .*)?$")) {
                cause = line;
            }
        }
        if (cause != null) {
            out.append("  cause: ").append(cause).append('\n');
        }
        int description = all.indexOf("Description:");
        if (description >= 0) {
            all.subList(description + 1, all.size()).stream().takeWhile(l -> !l.startsWith("20") || l.startsWith("  "))
                    .limit(12).forEach(l -> out.append("  ").append(l).append('\n'));
        }
        out.append("  its last lines:\n");
        all.subList(Math.max(0, all.size() - lines), all.size()).forEach(l -> out.append("    ").append(l).append('\n'));
        return out.toString().stripTrailing();
    }

    static void pause(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
