package io.fleetjobs.agent.process;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Process groups on Linux: signals go through {@code kill(1)} (Java cannot signal a group), liveness and
 * identity come from procfs. A zombie (exited, not yet reaped) counts as gone: where the agent's orphans
 * are reparented to a PID 1 that never reaps them, they would otherwise look alive for ever.
 */
final class ProcessGroups {
    static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private static final Logger log = LoggerFactory.getLogger(ProcessGroups.class);
    private static final Path PROC = Path.of("/proc");
    private static final boolean PROCFS = Files.isReadable(PROC.resolve("self/stat"));

    private ProcessGroups() {
    }

    /** What procfs says of one process. {@code startTicks} is its start, in clock ticks since boot. */
    record Stat(char state, long pgrp, long session, long startTicks) {
        boolean gone() {
            return state == 'Z' || state == 'X';
        }
    }

    /**
     * Sends a signal ({@code TERM}, {@code KILL}, or {@code 0} to probe) to every process of a group.
     *
     * @return whether it reached at least one process; false when the group has none (or kill failed)
     */
    static boolean signal(long pgid, String signal) {
        if (pgid <= 1) {
            throw new IllegalArgumentException("not a process group one may signal: " + pgid);
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, "--", "-" + pgid).redirectErrorStream(true).start();
            String said = new String(kill.getInputStream().readAllBytes(), UTF_8).strip();
            int exit = kill.waitFor();
            if (exit != 0 && !said.contains("No such process") && !"0".equals(signal)) {
                log.warn("kill -{} -- -{} failed ({}): {}", signal, pgid, exit, said);
            }
            return exit == 0;
        } catch (IOException e) {
            log.warn("cannot run kill -{} -- -{}: {}", signal, pgid, e.toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether any process of the group is alive (zombies do not count). */
    static boolean alive(long pgid) {
        if (!PROCFS) {
            return signal(pgid, "0");
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC, ProcessGroups::isPidDirectory)) {
            for (Path entry : entries) {
                Optional<Stat> stat = stat(Long.parseLong(entry.getFileName().toString()));
                if (stat.isPresent() && stat.get().pgrp() == pgid && !stat.get().gone()) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            log.warn("cannot list {}: {}", PROC, e.toString());
            return signal(pgid, "0");
        }
    }

    /** Waits until none of the groups has a live process, or the deadline ({@link System#nanoTime()}) passes. */
    static boolean awaitGone(Collection<Long> pgids, long deadlineNanos) {
        List<Long> left = List.copyOf(pgids);
        while (true) {
            left = left.stream().filter(ProcessGroups::alive).toList();
            long remaining = deadlineNanos - System.nanoTime();
            if (left.isEmpty() || remaining <= 0) {
                return left.isEmpty();
            }
            LockSupport.parkNanos(Math.min(remaining, POLL_NANOS));
        }
    }

    /** The process as procfs shows it; empty when it does not exist (or there is no procfs). */
    static Optional<Stat> stat(long pid) {
        if (!PROCFS) {
            return Optional.empty();
        }
        try {
            String line = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), UTF_8);
            // pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
            // cutime cstime priority nice num_threads itrealvalue starttime ...; comm may hold spaces and parens
            String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
            return Optional.of(new Stat(fields[0].charAt(0), Long.parseLong(fields[2]), Long.parseLong(fields[3]),
                    Long.parseLong(fields[19])));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** This boot's id: processes recorded under another one cannot be alive. */
    static Optional<String> bootId() {
        try {
            // by line: Files.readString gave the first byte alone of /proc/sys files on a 6.18 kernel
            return Files.readAllLines(PROC.resolve("sys/kernel/random/boot_id"), UTF_8).stream().findFirst()
                    .map(String::strip).filter(id -> !id.isEmpty());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static boolean isPidDirectory(Path entry) {
        String name = entry.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
    }
}
