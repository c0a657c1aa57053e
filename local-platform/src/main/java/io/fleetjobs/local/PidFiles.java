package io.fleetjobs.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code <home>/run/<component>.pid}: the process of each component while the launcher runs it, with
 * the process's start time, so that a launcher that died hard (SIGKILL, a crash) leaves a trail the next
 * one follows to end what it left. A pid whose process started at another time belongs to someone
 * else now and is never touched.
 */
final class PidFiles {
    private final Path dir;

    PidFiles(Path dir) {
        this.dir = dir;
    }

    void record(String component, ProcessHandle process) {
        try {
            Files.createDirectories(dir);
            String start = process.info().startInstant().map(i -> Long.toString(i.toEpochMilli())).orElse("-");
            Path file = dir.resolve(component + ".pid");
            Path partial = dir.resolve(component + ".pid.partial");
            Files.writeString(partial, process.pid() + " " + start + "\n", StandardCharsets.UTF_8);
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record the process of " + component + " under " + dir, e);
        }
    }

    void forget(String component) {
        try {
            Files.deleteIfExists(dir.resolve(component + ".pid"));
        } catch (IOException e) {
            // a stale record is checked against the process's start time before anything is done with it
        }
    }

    /** A process that an earlier launcher recorded and that still runs. */
    record Leftover(String component, ProcessHandle process) {
    }

    /** The recorded processes that still run, the same processes as recorded (same start time); removes every record. */
    List<Leftover> takeLeftovers() {
        List<Leftover> found = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return found;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                if (name.endsWith(".pid")) {
                    read(file).ifPresent(p -> found.add(new Leftover(name.substring(0, name.length() - 4), p)));
                }
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + dir, e);
        }
        return found;
    }

    private static Optional<ProcessHandle> read(Path file) {
        try {
            String[] words = Files.readString(file, StandardCharsets.UTF_8).strip().split(" ");
            long pid = Long.parseLong(words[0]);
            Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
            if (process.isEmpty() || words.length < 2 || "-".equals(words[1])) {
                return Optional.empty();
            }
            Instant recorded = Instant.ofEpochMilli(Long.parseLong(words[1]));
            return process.filter(p -> p.info().startInstant().map(recorded::equals).orElse(false));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
