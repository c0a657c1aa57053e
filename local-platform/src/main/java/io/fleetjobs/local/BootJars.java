package io.fleetjobs.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Spring Boot's runnable jars, run from an extracted copy ({@code java -Djarmode=tools -jar … extract}: the
 * application jar and its {@code lib/} on the plain class path) with a class-data archive per component
 * ({@code -XX:+AutoCreateSharedArchive}: written when the JVM ends cleanly, used from the next start). A
 * service then starts on about half the CPU time, which is what a 2-core machine starting five JVMs at
 * once is short of.
 *
 * <p>Each copy lives in {@code <apps>/<jar name>-<size>-<mtime>/}, so that a rebuilt jar gets a new copy
 * while processes still run from the old one; copies of jars that are no longer there are removed by
 * {@link #removeStale}. A jar that cannot be extracted (not a Spring Boot jar) runs as it is.
 */
final class BootJars {
    private final Path apps;
    private final Path archives;
    private final Map<Path, Object> locks = new ConcurrentHashMap<>();

    BootJars(Path apps, Path archives) {
        this.apps = apps;
        this.archives = archives;
    }

    /** The JVM options and jar to run a component from: the extracted copy and its archive, or the jar itself. */
    List<String> launch(String component, Path jar) {
        Optional<Path> extracted = extracted(jar);
        List<String> words = new ArrayList<>();
        if (extracted.isPresent()) {
            words.add("-XX:SharedArchiveFile=" + archives.resolve(component + ".jsa"));
            words.add("-XX:+AutoCreateSharedArchive");
            // the archive's "cannot be archived" and "Skipping …" warnings (hundreds at each clean exit) would bury
            // a failure's cause in the log
            words.add("-Xlog:cds=off");
            words.add("-Xlog:cds+dynamic=off");
        }
        words.add("-jar");
        words.add(extracted.orElse(jar).toString());
        return words;
    }

    private Optional<Path> extracted(Path jar) {
        synchronized (locks.computeIfAbsent(jar, j -> new Object())) {
            try {
                Path dir = apps.resolve(copyName(jar));
                Path app = dir.resolve(jar.getFileName());
                if (Files.isRegularFile(app)) {
                    return Optional.of(app);
                }
                Files.createDirectories(apps);
                Files.createDirectories(archives);
                Path partial = apps.resolve(dir.getFileName() + ".partial");
                deleteTree(partial);
                Process tool = new ProcessBuilder(Processes.javaBin(), "-Djarmode=tools", "-jar", jar.toString(), "extract",
                        "--destination", partial.toString()).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!tool.waitFor(2, TimeUnit.MINUTES)) {
                    tool.destroyForcibly();
                    return Optional.empty();
                }
                if (tool.exitValue() != 0 || !Files.isRegularFile(partial.resolve(jar.getFileName()))) {
                    deleteTree(partial);
                    return Optional.empty();
                }
                Files.move(partial, dir, StandardCopyOption.ATOMIC_MOVE);
                return Optional.of(app);
            } catch (IOException e) {
                return Optional.empty();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while extracting " + jar, e);
            }
        }
    }

    /** Removes the copies of jars that are not among these (as they are now); call it while nothing runs from them. */
    void removeStale(List<Path> jars) {
        if (!Files.isDirectory(apps)) {
            return;
        }
        List<String> current = new ArrayList<>();
        for (Path jar : jars) {
            try {
                current.add(copyName(jar));
            } catch (IOException e) {
                // not there: none of its copies is current
            }
        }
        try (Stream<Path> entries = Files.list(apps)) {
            for (Path entry : entries.toList()) {
                if (!current.contains(entry.getFileName().toString())) {
                    deleteTree(entry);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clean " + apps, e);
        }
    }

    private static String copyName(Path jar) throws IOException {
        return jar.getFileName() + "-" + Files.size(jar) + "-" + Files.getLastModifiedTime(jar).toMillis();
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
