package io.fleetjobs.local;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The job processes an agent may leave behind when it stops. The worker agent does not end its attempts
 * on SIGTERM (its {@code Agent.stop()} only ends its loop); each attempt runs as a process group of its
 * own ({@code setsid}), recorded in {@code <work-dir>/<machine-id>/running/*.pgid} while it runs, with a
 * lifeline to the agent that kills the group once the agent is gone, and a restarted agent kills what
 * its previous incarnation recorded. A job that left its group, or outlived its lifeline, would still
 * run on; so after an agent has exited on a stop the launcher ends every group still recorded (SIGTERM,
 * a grace, SIGKILL) and any process that was the agent's descendant before the stop, as an init system
 * ends a service's cgroup. The records are left to the next agent, which finds their groups gone. The
 * attempts end {@code AGENT_RESTARTED} when the agent joins again, and are retried on the platform's
 * budget, not the user's: the agent goes first, so that no job is seen to fail with a signal.
 */
final class AgentJobs {
    private AgentJobs() {
    }

    /** Ends the groups recorded under {@code runningDir} and the processes given; returns how many processes were alive. */
    static int end(Path runningDir, List<ProcessHandle> descendantsBeforeStop, Duration grace) {
        Set<ProcessHandle> targets = new LinkedHashSet<>(descendantsBeforeStop);
        for (long pgid : recordedGroups(runningDir)) {
            targets.addAll(Processes.groupMembers(pgid));
        }
        return Processes.terminate(targets.stream().filter(Processes::aliveNotZombie).toList(), grace);
    }

    /**
     * Removes the nftables table in which an agent refused its attempts' connections to the platform, where the agent
     * could not (killed): its rules name this platform's ports, which a later platform on the host may give to something
     * its jobs must reach. The agent records the table's name in its machine's work directory (worker-agent's
     * {@code ProcessRunner.EGRESS_TABLE_FILE}) while the table holds, so the naming rule lives in the agent alone.
     * Nothing where there is no record (no sandbox, no nft, or the agent removed the table itself).
     */
    static void unfence(Path machineDir) {
        Path record = machineDir.resolve(EGRESS_TABLE_FILE);
        String table;
        try {
            table = Files.readString(record).strip();
        } catch (IOException e) {
            return; // none: nothing to remove
        }
        if (!table.matches("fleetjobs_[A-Za-z0-9_]{1,48}")) {
            return; // not a name the agent writes: never hand nft anything else
        }
        try {
            Process nft = new ProcessBuilder("nft", "delete", "table", "inet", table)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (nft.waitFor(10, TimeUnit.SECONDS) && nft.exitValue() == 0) {
                Files.deleteIfExists(record);
            }
        } catch (IOException e) {
            // no nft: the agent could not have made the table either
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The file, in a machine's work directory, in which its agent names the nftables table of its attempts. */
    static final String EGRESS_TABLE_FILE = "egress-table";

    /**
     * The process groups recorded under {@code runningDir} (the agent's {@code jobId=, attempt=, pgid=,
     * bootId=, startTicks=} files) that may still be the attempts': recorded in this boot, and with a
     * leader that is either gone (the rest of the group may live on) or started when recorded.
     */
    static List<Long> recordedGroups(Path runningDir) {
        if (!Files.isDirectory(runningDir)) {
            return List.of();
        }
        Optional<String> boot = Processes.bootId();
        try (Stream<Path> files = Files.list(runningDir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".pgid"))
                    .flatMap(f -> read(f).stream())
                    .filter(r -> r.bootId().isEmpty() || boot.isEmpty() || r.bootId().equals(boot.get()))
                    .filter(r -> Processes.stat(r.pgid()).map(s -> s.gone() || r.startTicks() < 0 || s.startTicks() == r.startTicks())
                            .orElse(true))
                    .map(Record::pgid)
                    .filter(pgid -> pgid > 1)
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private record Record(long pgid, String bootId, long startTicks) {
    }

    private static Optional<Record> read(Path file) {
        try {
            Properties fields = new Properties();
            fields.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
            return Optional.of(new Record(Long.parseLong(fields.getProperty("pgid")), fields.getProperty("bootId", ""),
                    Long.parseLong(fields.getProperty("startTicks", "-1"))));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
