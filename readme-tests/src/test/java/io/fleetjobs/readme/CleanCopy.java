package io.fleetjobs.readme;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What a newcomer starts from: the repository as a fresh clone holds it, and a Maven repository with none of the
 * project's own artifacts.
 */
final class CleanCopy {
    private CleanCopy() {
    }

    /**
     * The working tree as git sees it (tracked files and files not ignored, as they are now, so that uncommitted
     * work is tried too), copied into {@code target}: no {@code target/}, no {@code .local/}, nothing ignored.
     */
    static Path workingTree(Path repository, Path target) {
        deleteRecursively(target);
        String listing = run(repository, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard");
        try {
            for (String name : listing.split("\0")) {
                Path from = repository.resolve(name);
                if (name.isEmpty() || !Files.exists(from, LinkOption.NOFOLLOW_LINKS) || Files.isDirectory(from)) {
                    continue; // deleted in the working tree, or a submodule
                }
                Path to = target.resolve(name);
                Files.createDirectories(to.getParent());
                Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return target;
    }

    /**
     * The build's local Maven repository without the project's artifacts ({@code io/fleetjobs}): hard links where
     * both lie on one file system, else symbolic links, so that nothing is copied and the original is not changed
     * (Maven replaces a file it rewrites, which breaks the link).
     */
    static Path thirdPartyRepository(Path localRepository, Path target) {
        deleteRecursively(target);
        try {
            Files.createDirectories(target.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String source = localRepository.toAbsolutePath() + "/";
        if (tryRun(target.getParent(), "cp", "-al", source, target.toString()) != 0) {
            deleteRecursively(target);
            run(target.getParent(), "cp", "-as", source, target.toString());
        }
        deleteRecursively(target.resolve("io").resolve("fleetjobs"));
        return target;
    }

    static boolean isGitWorkTree(Path directory) {
        return tryRun(directory, "git", "rev-parse", "--is-inside-work-tree") == 0;
    }

    static void deleteRecursively(Path path) {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> all = Files.walk(path)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String run(Path directory, String... command) {
        try {
            Process p = new ProcessBuilder(command).directory(directory.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed in " + directory);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int tryRun(Path directory, String... command) {
        try {
            Process p = new ProcessBuilder(List.of(command)).directory(directory.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(5, TimeUnit.MINUTES) ? p.exitValue() : -1;
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
