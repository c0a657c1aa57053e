package io.fleetjobs.agent.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file side of a sandboxed attempt: who owns what, and whether the job's uid may run its command.
 *
 * <pre>
 *   &lt;workDir&gt;/                      root 0711   (no one else may list it)
 *     running/                       root 0700   process group records
 *     attempts/                      root 0711
 *       &lt;jobId&gt;-&lt;attempt&gt;/         root 0711
 *         stdout.log, stderr.log     root 0600   written by the agent only
 *         work/                      uid  0700   the job's working directory and HOME; root 0700 once it ended
 * </pre>
 */
final class Sandboxing {
    private static final Logger log = LoggerFactory.getLogger(Sandboxing.class);

    private Sandboxing() {
    }

    static void prepare(Path workRoot, Path attemptsDir, Path runningDir, Path attemptDir, Path stdout, Path stderr,
            Path work, int uid) throws IOException {
        mode(workRoot, "rwx--x--x");
        mode(attemptsDir, "rwx--x--x");
        mode(runningDir, "rwx------");
        mode(attemptDir, "rwx--x--x");
        mode(stdout, "rw-------");
        mode(stderr, "rw-------");
        Files.createDirectories(work);
        mode(work, "rwx------");
        Files.setAttribute(work, "unix:gid", uid);
        Files.setAttribute(work, "unix:uid", uid);
    }

    /** Once the attempt ended: its working directory is root's, so that the next attempt given its uid cannot enter. */
    static void lock(Path work) {
        try {
            Files.setAttribute(work, "unix:uid", 0);
            Files.setAttribute(work, "unix:gid", 0);
            mode(work, "rwx------");
        } catch (IOException | RuntimeException e) {
            log.warn("cannot hand {} back to root: {}", work, e.toString());
        }
    }

    private static void mode(Path path, String permissions) throws IOException {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
    }

    /**
     * Whether a process of {@code uid} (gid the same, no other groups) could exec the program as execvp finds
     * it: a name with a slash is a path (relative to the working directory), any other is looked up on the
     * search path. Not found: no such file, or one the uid may not reach; not executable: found, but without
     * an execute bit for the uid.
     */
    static ProcessRunner.Startable startableBy(String program, String searchPath, Path workingDirectory, int uid) {
        if (program.isEmpty()) {
            return ProcessRunner.Startable.NOT_FOUND;
        }
        try {
            List<Path> candidates = new ArrayList<>();
            if (program.contains("/")) {
                candidates.add(workingDirectory.resolve(program));
            } else {
                for (String dir : (searchPath == null ? ProcessRunner.SANDBOX_PATH : searchPath).split(":", -1)) {
                    candidates.add(workingDirectory.resolve(dir.isEmpty() ? "." : dir).resolve(program));
                }
            }
            boolean foundOne = false;
            for (Path candidate : candidates) {
                if (!Files.isRegularFile(candidate) || !reachable(candidate.toAbsolutePath().getParent(), uid)) {
                    continue;
                }
                if (may(candidate.toRealPath(), uid, 1)) {
                    return ProcessRunner.Startable.YES;
                }
                foundOne = true;
            }
            return foundOne ? ProcessRunner.Startable.NOT_EXECUTABLE : ProcessRunner.Startable.NOT_FOUND;
        } catch (InvalidPathException | IOException e) {
            return ProcessRunner.Startable.NOT_FOUND;
        }
    }

    /** Whether the uid may search every directory from the root down to {@code dir}. */
    private static boolean reachable(Path dir, int uid) throws IOException {
        for (Path d = dir; d != null; d = d.getParent()) {
            if (!may(d.toRealPath(), uid, 1)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the uid has the permission bit ({@code 4} read, {@code 2} write, {@code 1} execute/search). */
    static boolean may(Path path, int uid, int bit) throws IOException {
        int mode = (Integer) Files.getAttribute(path, "unix:mode");
        int owner = (Integer) Files.getAttribute(path, "unix:uid");
        int group = (Integer) Files.getAttribute(path, "unix:gid");
        int shift = owner == uid ? 6 : group == uid ? 3 : 0;
        return ((mode >> shift) & bit) != 0;
    }
}
