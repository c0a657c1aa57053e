package io.fleetjobs.agent.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * How much a directory holds, as the disk holds it: each entry (file, directory, link) at least one {@link #BLOCK}
 * (an inode and a block), a file its size or the blocks it was given, whichever is more. Millions of empty files hold
 * no bytes but can take every inode of the disk; counted so, they meet the working directory's cap at about two and
 * a half million per 10 GiB. Blocks count because a job may be given space its size does not show
 * ({@code fallocate --keep-size}); {@link #heldOpen} counts the files it deleted but holds open.
 *
 * <p>The walk is GNU {@code find}'s, in a process of its own, not the agent's: the job owns the tree and changes it
 * while it is walked, and a walk that opens by path can be made to open a FIFO swapped in for a directory, which
 * blocks that open until someone writes to the FIFO, forever (the agent's thread with it). {@code find} opens each
 * directory relative to its parent's descriptor, as a directory only and without following links, and reads
 * nothing else; it reaches paths past {@code PATH_MAX}; and it does not leave the file system. It runs at most
 * {@link #WALK_LIMIT}. A tree the walk could not read (a directory the agent may not read, where it is not root, or
 * a tree changed under it three walks in a row) is {@link #UNMEASURABLE}: past any cap, and the largest when the
 * disk runs short, never the smallest, so another tenant's attempt is not evicted in its place.
 */
final class DiskUsage {
    /** What an entry takes on the disk at least. */
    static final long BLOCK = 4096;

    /** A directory holding something the walk could not reach: more than any cap. */
    static final long UNMEASURABLE = Long.MAX_VALUE;

    /** The longest one walk may take; a walk stopped there did not measure. */
    static final long WALK_LIMIT_SECONDS = 120;

    private static final int TRIES = 3;

    private DiskUsage() {
    }

    static long of(Path root) {
        return of(root, Long.MAX_VALUE);
    }

    /**
     * As {@link #of(Path)}, the walk ending as soon as the total passes {@code enough} (a bound on its cost);
     * {@link #UNMEASURABLE} where the tree could not be read.
     */
    static long of(Path root, long enough) {
        for (int i = 1; ; i++) {
            long total = walk(root, enough);
            if (total != UNMEASURABLE || i == TRIES) {
                return total;
            }
        }
    }

    private static long walk(Path root, long enough) {
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
            return 0;
        }
        Process find;
        try {
            ProcessBuilder builder = new ProcessBuilder("find", "-P", root.toString(), "-xdev", "-ignore_readdir_race",
                    "-printf", "%y %s %b\\n").redirectErrorStream(true);
            Map<String, String> env = builder.environment();
            env.clear();
            env.put("PATH", "/usr/bin:/bin");
            env.put("LC_ALL", "C");
            find = builder.start();
        } catch (IOException e) {
            return UNMEASURABLE;
        }
        Thread.ofVirtual().start(() -> stopAfter(find, WALK_LIMIT_SECONDS));
        long total = 0;
        boolean failed = false;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(find.getInputStream(), StandardCharsets.US_ASCII))) {
            for (String line; (line = lines.readLine()) != null; ) {
                if (line.startsWith("find: ")) {
                    // an entry listed, then removed before find reached it (a job's build churns its tree) is no fault
                    failed |= !line.endsWith(": No such file or directory");
                    continue;
                }
                total += cost(line);
                if (total > enough) {
                    find.destroyForcibly();
                    return total;
                }
            }
            int exit = find.waitFor();
            boolean measured = exit == 0 || exit == 1 && !failed;
            return measured || !Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS) ? total : UNMEASURABLE;
        } catch (IOException | RuntimeException e) {
            find.destroyForcibly();
            return UNMEASURABLE;
        } catch (InterruptedException e) {
            find.destroyForcibly();
            Thread.currentThread().interrupt();
            return UNMEASURABLE;
        }
    }

    /**
     * One line of {@code find -printf '%y %s %b'}: type, size in bytes, blocks of 512 bytes. Names are never printed,
     * but an error's line (merged into the output) names one, and a name may hold a newline: what does not parse
     * fails the walk, and a line forged so adds at least a block, never less.
     */
    static long cost(String line) {
        String[] parts = line.split(" ", 3);
        long size = parts[0].equals("f") ? Long.parseLong(parts[1]) : 0;
        long blocks = Long.parseLong(parts[2]);
        return Math.max(BLOCK, Math.max(size, blocks > Long.MAX_VALUE / 512 ? Long.MAX_VALUE : blocks * 512));
    }

    private static void stopAfter(Process find, long seconds) {
        try {
            if (!find.waitFor(seconds, TimeUnit.SECONDS)) {
                find.destroyForcibly(); // its output ends: the walk returns what it read as unmeasured (exit not 0)
            }
        } catch (InterruptedException e) {
            find.destroyForcibly();
        }
    }

    /**
     * The bytes of files that were under {@code root}, deleted while the processes {@code pids} hold them open or
     * mapped: they take the disk until the last of them is closed and unmapped, and the walk no longer sees them.
     * Each file counted once, however many descriptors and mappings hold it. Read from {@code /proc/<pid>/fd} and
     * {@code /proc/<pid>/map_files}: a link is read and its file's size taken, nothing is opened.
     */
    static long heldOpen(Collection<Long> pids, Path root) {
        String under = root.toString() + "/";
        Set<Object> seen = new HashSet<>();
        long total = 0;
        for (long pid : pids) {
            for (String held : new String[] {"fd", "map_files"}) {
                try (DirectoryStream<Path> links = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), held))) {
                    for (Path link : links) {
                        total += deletedUnder(link, under, seen);
                    }
                } catch (IOException e) {
                    // the process ended
                }
            }
        }
        return total;
    }

    private static long deletedUnder(Path link, String under, Set<Object> seen) {
        try {
            String target = Files.readSymbolicLink(link).toString();
            if (!target.startsWith(under) || !target.endsWith(" (deleted)")) {
                return 0;
            }
            Map<String, Object> attributes = Files.readAttributes(link, "unix:ino,dev,size");
            return seen.add(attributes.get("dev") + ":" + attributes.get("ino")) ? Math.max(BLOCK, (Long) attributes.get("size")) : 0;
        } catch (IOException | RuntimeException e) {
            return 0; // closed or unmapped meanwhile
        }
    }
}
