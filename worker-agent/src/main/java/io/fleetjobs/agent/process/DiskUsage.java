package io.fleetjobs.agent.process;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * How much a directory holds: the sizes of its regular files, links not followed, each entry (file, directory,
 * link) counted as at least one {@link #BLOCK}, as the disk holds it: an inode and a block. Millions of empty files
 * hold no bytes but can take every inode of the disk, for every job of the machine and the agent; counted so,
 * they meet the working directory's cap at about two and a half million per 10 GiB.
 *
 * <p>What the walk cannot reach is not left out: a job may nest directories until their paths pass what the system
 * takes as a path ({@code PATH_MAX}, 4096 bytes; {@code cd} goes there step by step), or take the agent's read of a
 * directory away where the agent is not root, and whatever lies below would then count for nothing: past the cap,
 * and the smallest when the disk runs short, so that another tenant's attempt would be evicted in its place. Such a
 * directory is {@link #UNMEASURABLE}.
 */
final class DiskUsage {
    /** What an entry takes on the disk at least. */
    static final long BLOCK = 4096;

    /** A directory holding something the walk could not reach: more than any cap. */
    static final long UNMEASURABLE = Long.MAX_VALUE;

    private DiskUsage() {
    }

    static long of(Path root) {
        return of(root, Long.MAX_VALUE);
    }

    /**
     * As {@link #of(Path)}, the walk ending as soon as the total passes {@code enough} (a bound on its cost);
     * {@link #UNMEASURABLE} where a part of the tree could not be read (but for an entry deleted while walking).
     */
    static long of(Path root, long enough) {
        long[] total = {0};
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                    total[0] += BLOCK;
                    return total[0] > enough ? FileVisitResult.TERMINATE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    total[0] += Math.max(BLOCK, attributes.isRegularFile() ? attributes.size() : 0);
                    return total[0] > enough ? FileVisitResult.TERMINATE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException failure) {
                    if (failure instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE; // deleted while walking
                    }
                    total[0] = UNMEASURABLE;
                    return FileVisitResult.TERMINATE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException failure) {
                    if (failure == null || failure instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    total[0] = UNMEASURABLE; // a directory whose listing failed part way
                    return FileVisitResult.TERMINATE;
                }
            });
        } catch (NoSuchFileException e) {
            return total[0];
        } catch (IOException e) {
            return UNMEASURABLE;
        }
        return total[0];
    }
}
