package io.fleetjobs.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
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
            return Optional.of(Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip()).filter(s -> !s.isEmpty());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The last lines of a log (from its last 64 KiB), for a message about a process that did not come up. */
    static String tail(Path log, int lines) {
        try (var file = FileChannel.open(log)) {
            long size = file.size();
            long from = Math.max(0, size - 65_536);
            ByteBuffer buffer = ByteBuffer.allocate((int) (size - from));
            file.read(buffer, from);
            List<String> all = new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).lines().toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "";
        }
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
