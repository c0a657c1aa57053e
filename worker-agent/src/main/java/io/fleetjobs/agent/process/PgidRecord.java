package io.fleetjobs.agent.process;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;

/**
 * The on-disk note that an attempt's process group runs, so that a restarted agent can kill what its
 * previous incarnation left. Besides the group id it keeps the boot id and the leader's start time, so
 * that a record that outlived a reboot, or a group id that the kernel has since given to another process,
 * never leads to killing someone else's processes.
 *
 * @param bootId     the boot the group was started in; empty when unknown
 * @param startTicks the leader's start in clock ticks since boot; -1 when unknown
 */
record PgidRecord(AttemptKey key, long pgid, String bootId, long startTicks) {
    static final String SUFFIX = ".pgid";

    static PgidRecord of(AttemptKey key, long pgid) {
        return new PgidRecord(key, pgid, ProcessGroups.bootId().orElse(""),
                ProcessGroups.stat(pgid).map(ProcessGroups.Stat::startTicks).orElse(-1L));
    }

    /** Writes the record atomically: a reader sees all of it or nothing. */
    void write(Path file) throws IOException {
        String text = "jobId=" + key.jobId() + "\nattempt=" + key.attempt() + "\npgid=" + pgid + "\nbootId=" + bootId
                + "\nstartTicks=" + startTicks + "\n";
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        Files.writeString(partial, text, UTF_8);
        Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    static PgidRecord read(Path file) throws IOException {
        Properties fields = new Properties();
        fields.load(new StringReader(Files.readString(file, UTF_8)));
        try {
            AttemptKey key = new AttemptKey(UUID.fromString(fields.getProperty("jobId")),
                    Integer.parseInt(fields.getProperty("attempt")));
            return new PgidRecord(key, Long.parseLong(fields.getProperty("pgid")), fields.getProperty("bootId", ""),
                    Long.parseLong(fields.getProperty("startTicks", "-1")));
        } catch (RuntimeException e) {
            throw new IOException("not a process group record: " + file + " (" + e + ")", e);
        }
    }

    /**
     * Whether the recorded group may still be the attempt's: not when the machine has booted since, nor
     * when the leader's process id now belongs to a process that started at another time (the kernel
     * reuses an id only once no process and no group holds it, so the group is gone).
     */
    boolean stillOurs() {
        Optional<String> boot = ProcessGroups.bootId();
        if (!bootId.isEmpty() && boot.isPresent() && !boot.get().equals(bootId)) {
            return false;
        }
        Optional<ProcessGroups.Stat> leader = ProcessGroups.stat(pgid);
        return leader.isEmpty() || leader.get().gone() || startTicks < 0 || leader.get().startTicks() == startTicks;
    }
}
