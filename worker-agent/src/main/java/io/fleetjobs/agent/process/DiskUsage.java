package io.fleetjobs.agent.process;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * How much a directory holds: the sizes of its regular files, links not followed, each entry (file, directory,
 * link) counted as at least one {@link #BLOCK}, as the disk holds it: an inode and a block. Millions of empty files
 * hold no bytes but can take every inode of the disk, for every job of the machine and the agent; counted so,
 * they meet the working directory's cap at about two and a half million per 10 GiB.
 */
final class DiskUsage {
    /** What an entry takes on the disk at least. */
    static final long BLOCK = 4096;

    private DiskUsage() {
    }

    static long of(Path root) {
        return of(root, Long.MAX_VALUE);
    }

    /** As {@link #of(Path)}, the walk ending as soon as the total passes {@code enough} (a bound on its cost). */
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
                    return FileVisitResult.CONTINUE; // deleted while walking
                }
            });
        } catch (IOException e) {
            return total[0];
        }
        return total[0];
    }
}
