package io.fleetjobs.jobctl;

import io.fleetjobs.sdk.FleetJobsClient;
import io.fleetjobs.sdk.model.Attempt;
import io.fleetjobs.sdk.model.AttemptList;
import io.fleetjobs.sdk.model.AttemptLogs;
import io.fleetjobs.sdk.model.Capacity;
import io.fleetjobs.sdk.model.Event;
import io.fleetjobs.sdk.model.EventList;
import io.fleetjobs.sdk.model.Job;
import io.fleetjobs.sdk.model.JobPage;
import io.fleetjobs.sdk.model.JobState;
import io.fleetjobs.sdk.model.Machine;
import io.fleetjobs.sdk.model.MachineList;
import io.fleetjobs.sdk.model.Tenant;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The reading commands and cancel: one API call each, printed as a table or as the API's JSON. */
final class JobCommands {
    private JobCommands() {
    }

    static void printJob(PrintWriter out, Job j) {
        Table t = new Table("FIELD", "VALUE");
        t.row("id", j.getId()).row("name", j.getName()).row("tenant", j.getTenant()).row("queue", j.getQueue())
                .row("priority", j.getPriority())
                .row("state", j.getState() + (Boolean.TRUE.equals(j.getCancelRequested()) && !terminal(j) ? " (cancel requested)" : ""))
                .row("reason", j.getStateReason()).row("attempt", j.getAttempt()).row("machine", j.getMachineId())
                .row("exit code", j.getExitCode()).row("failure", j.getFailureReason())
                .row("command", j.getExecution() == null ? null : String.join(" ", j.getExecution().getCommand()))
                .row("created", j.getCreatedAt()).row("updated", j.getUpdatedAt()).row("finished", j.getFinishedAt());
        t.print(out);
    }

    private static boolean terminal(Job j) {
        return FleetJobsClient.isTerminal(j.getState());
    }

    @Command(name = "get", description = "Shows a job.")
    static final class Get extends CommandBase {
        @Parameters(paramLabel = "JOB_ID")
        String id;

        @Override
        public Integer call() {
            String body = client().jobs().getJobWithResponseSpec(jobId(id)).body(String.class);
            if (json()) {
                printJson(body);
            } else {
                printJob(out(), read(body, Job.class));
            }
            return JobCtl.OK;
        }
    }

    @Command(name = "list", description = "Lists jobs, newest first.")
    static final class ListJobs extends CommandBase {
        @Option(names = "--state", paramLabel = "STATE", description = "Only jobs in this state: ${COMPLETION-CANDIDATES}.")
        JobState state;

        @Option(names = "--limit", paramLabel = "N", defaultValue = "50", description = "Jobs per page (1-500; default ${DEFAULT-VALUE}).")
        int limit;

        @Option(names = "--page-token", paramLabel = "TOKEN", description = "The page after the one that gave this token.")
        String pageToken;

        @Option(names = "--all", description = "Every page, not just the first.")
        boolean all;

        @Option(names = "--queue", paramLabel = "QUEUE", description = "Only jobs of this queue.")
        String queue;

        @Option(names = "--name", paramLabel = "TEXT", description = "Only jobs whose name contains this, in any case.")
        String name;

        @Option(names = "--label", paramLabel = "KEY[=VALUE]", description = "Only jobs with this label, or this value of it.")
        String label;

        @Override
        public Integer call() {
            String token = pageToken;
            Table table = new Table("ID", "NAME", "STATE", "ATTEMPT", "MACHINE", "CREATED");
            ArrayNode items = mapper().createArrayNode();
            while (true) {
                String body = client().jobs().listJobsWithResponseSpec(state, limit, token, queue, name, label).body(String.class);
                if (json() && !all) {
                    printJson(body);
                    return JobCtl.OK;
                }
                JobPage page = read(body, JobPage.class);
                if (json()) {
                    mapper().readTree(body).path("items").forEach(items::add);
                } else {
                    page.getItems().forEach(j -> table.row(j.getId(), j.getName(), j.getState(), j.getAttempt(),
                            j.getMachineId(), j.getCreatedAt()));
                }
                token = page.getNextPageToken();
                if (!all || token == null) {
                    break;
                }
            }
            if (json()) {
                ObjectNode result = mapper().createObjectNode();
                result.set("items", items);
                printJson(mapper().writeValueAsString(result));
            } else {
                table.print(out());
                if (token != null) {
                    err().println("more: --page-token " + token + " (or --all)");
                    err().flush();
                }
            }
            return JobCtl.OK;
        }
    }

    @Command(name = "cancel", description = "Cancels a job (again is fine; a job already SUCCEEDED or FAILED is a conflict).")
    static final class Cancel extends CommandBase {
        @Parameters(paramLabel = "JOB_ID")
        String id;

        @Override
        public Integer call() {
            String body = client().jobs().cancelJobWithResponseSpec(jobId(id)).body(String.class);
            if (json()) {
                printJson(body);
            } else {
                Job j = read(body, Job.class);
                out().println(j.getId() + " " + (j.getState() == JobState.CANCELED ? "CANCELED" : j.getState() + ", cancel requested"));
                out().flush();
            }
            return JobCtl.OK;
        }
    }

    @Command(name = "attempts", description = "Lists a job's attempts.")
    static final class Attempts extends CommandBase {
        @Parameters(paramLabel = "JOB_ID")
        String id;

        @Override
        public Integer call() {
            String body = client().jobs().listAttemptsWithResponseSpec(jobId(id)).body(String.class);
            if (json()) {
                printJson(body);
                return JobCtl.OK;
            }
            List<Attempt> attempts = read(body, AttemptList.class).getItems();
            // a gang's attempt is a row per replica: its rank ("1/3") is what `logs --replica` asks for
            boolean gang = attempts.stream().anyMatch(a -> a.getWorldSize() != null && a.getWorldSize() > 1);
            Table t = gang
                    ? new Table("ATTEMPT", "REPLICA", "MACHINE", "STATE", "SCHEDULED", "STARTED", "FINISHED", "EXIT", "FAILURE")
                    : new Table("ATTEMPT", "MACHINE", "STATE", "SCHEDULED", "STARTED", "FINISHED", "EXIT", "FAILURE");
            for (Attempt a : attempts) {
                List<Object> cells = new ArrayList<>(Arrays.asList(a.getAttempt(), a.getMachineId(),
                        a.getState(), a.getScheduledAt(), a.getStartedAt(), a.getFinishedAt(), a.getExitCode(),
                        a.getFailureReason()));
                if (gang) {
                    cells.add(1, a.getReplica() + "/" + a.getWorldSize());
                }
                t.row(cells.toArray());
            }
            t.print(out());
            return JobCtl.OK;
        }
    }

    @Command(name = "events", description = "Lists a job's state changes, oldest first; with -f and no job, follows"
            + " every change of the tenant's jobs as it happens (until interrupted, or --for).")
    static final class Events extends CommandBase {
        @Parameters(paramLabel = "JOB_ID", arity = "0..1")
        String id;

        @Option(names = {"-f", "--follow"}, description = "Every change of every job of the tenant, live, from now on.")
        boolean follow;

        @Option(names = "--for", paramLabel = "DURATION", converter = Values.DurationConverter.class,
                description = "With -f: stop after this long (exit 0); default: until interrupted.")
        Duration limit;

        @Override
        public Integer call() throws InterruptedException {
            if (follow) {
                if (id != null) {
                    throw new JobCtl.CliException(JobCtl.USAGE, "-f follows every job of the tenant; to follow one job,"
                            + " use: jobctl watch " + id);
                }
                return followAll();
            }
            if (id == null) {
                throw new JobCtl.CliException(JobCtl.USAGE, "give a JOB_ID, or -f for every job's changes as they happen");
            }
            String body = client().jobs().listEventsWithResponseSpec(jobId(id), null, null, null).body(String.class);
            if (json()) {
                printJson(body);
                return JobCtl.OK;
            }
            Table t = new Table("AT", "FROM", "TO", "REASON");
            for (Event e : read(body, EventList.class).getItems()) {
                t.row(e.getAt(), e.getFrom(), e.getTo(), e.getReason());
            }
            t.print(out());
            return JobCtl.OK;
        }

        /** One line a change, as it comes: its time, job, states and reason (or its JSON with -o json). */
        private int followAll() throws InterruptedException {
            client().followEvents(null, limit == null ? Duration.ofDays(3650) : limit, e -> {
                if (json()) {
                    out().println(mapper().writeValueAsString(e));
                } else {
                    out().println(e.getAt() + "  " + e.getJobId() + "  " + (e.getFrom() == null ? "" : e.getFrom() + " -> ")
                            + e.getTo() + (e.getReason() == null ? "" : "  " + Table.printable(e.getReason())));
                }
                out().flush();
                return true;
            });
            return JobCtl.OK;
        }
    }

    @Command(name = "tenant", description = "Shows your tenant: its weight, and what its jobs hold now against its quota.")
    static final class OwnTenant extends CommandBase {
        @Override
        public Integer call() {
            String body = client().jobs().getOwnTenantWithResponseSpec().body(String.class);
            if (json()) {
                printJson(body);
                return JobCtl.OK;
            }
            Tenant t = read(body, Tenant.class);
            if (t.getUsage() == null) {
                throw new JobCtl.CliException(JobCtl.FAILED, "this server does not say what the tenant's jobs hold");
            }
            out().println("tenant " + Table.printable(t.getName()) + ", weight " + t.getWeight() + ", "
                    + t.getUsage().getJobs() + " jobs placed or running");
            var quota = t.getQuota();
            Table table = new Table("RESOURCE", "HELD", "QUOTA");
            table.row("cpu", t.getUsage().getCpu().stripTrailingZeros().toPlainString(),
                    quota == null || quota.getCpu() == null ? null : quota.getCpu().stripTrailingZeros().toPlainString());
            table.row("memoryMb", t.getUsage().getMemoryMb(), quota == null ? null : quota.getMemoryMb());
            table.row("gpuCount", t.getUsage().getGpuCount(), quota == null ? null : quota.getGpuCount());
            table.print(out());
            return JobCtl.OK;
        }
    }

    @Command(name = "logs", description = "Prints an attempt's output: stdout here, stderr on stderr (the last 64 KiB of each,"
            + " kept when it ends); with -f, follows one stream live until the attempt ends.")
    static final class Logs extends CommandBase {
        @Parameters(paramLabel = "JOB_ID")
        String id;

        @Option(names = {"-a", "--attempt"}, paramLabel = "N", description = "The attempt (1 for the first); default the latest.")
        Integer attempt;

        @Option(names = {"-f", "--follow"}, description = "Follow the output as the job prints it, until the attempt ends.")
        boolean follow;

        @Option(names = "--stderr", description = "With -f: follow stderr rather than stdout.")
        boolean stderr;

        @Option(names = "--from-start", description = "With -f: from the first byte (the whole output), not the last 64 KiB.")
        boolean fromStart;

        @Option(names = {"-r", "--replica"}, paramLabel = "RANK", defaultValue = "0",
                description = "Of a gang: the replica whose output to print (its rank); default 0.")
        int replica;

        @Override
        public Integer call() {
            UUID job = jobId(id);
            int n = attempt != null ? attempt : client().get(job).getAttempt();
            if (n < 1) {
                throw new JobCtl.CliException(JobCtl.NOT_FOUND, "job " + id + " has no attempt yet");
            }
            if (follow) {
                Utf8Pieces text = new Utf8Pieces();
                var to = stderr ? err() : out();
                client().followLogs(job, n, replica, stderr ? "stderr" : "stdout", fromStart ? 0L : null, piece -> {
                    to.print(text.next(piece));
                    to.flush();
                });
                return JobCtl.OK;
            }
            String body = client().jobs().getAttemptLogsWithResponseSpec(job, n, null, null, null, replica, null).body(String.class);
            if (json()) {
                printJson(body);
                return JobCtl.OK;
            }
            AttemptLogs logs = read(body, AttemptLogs.class);
            if (logs.getStdout() != null) {
                out().print(logs.getStdout());
                out().flush();
            }
            if (logs.getStderr() != null) {
                err().print(logs.getStderr());
                err().flush();
            }
            boolean nothing = (logs.getStdout() == null || logs.getStdout().isEmpty())
                    && (logs.getStderr() == null || logs.getStderr().isEmpty());
            if (nothing && stillRunning(job, n)) {
                // the tails come with the attempt's end; until then its output is on its machine, shipped when followed
                err().println("attempt " + n + " of job " + id + " has not ended: its output so far is shown with -f");
                err().flush();
            }
            return JobCtl.OK;
        }

        private boolean stillRunning(UUID job, int n) {
            String body = client().jobs().listAttemptsWithResponseSpec(job).body(String.class);
            return read(body, AttemptList.class).getItems().stream()
                    .anyMatch(a -> a.getAttempt() != null && a.getAttempt() == n && a.getFinishedAt() == null
                            && (a.getReplica() == null ? 0 : a.getReplica()) == replica);
        }
    }

    @Command(name = "machines", description = "Lists the machines of the fleet; drains, cordons and uncordons one (admins).",
            subcommands = {MachineOperations.Drain.class, MachineOperations.Cordon.class, MachineOperations.Uncordon.class})
    static final class Machines extends CommandBase {
        @Override
        public Integer call() {
            String body = client().machines().listMachinesWithResponseSpec().body(String.class);
            if (json()) {
                printJson(body);
                return JobCtl.OK;
            }
            Table t = new Table("ID", "REGION", "STATUS", "CPU", "MEMORY_MB", "GPUS", "GPU_TYPE", "LAST_HEARTBEAT", "REASON");
            for (Machine m : read(body, MachineList.class).getItems()) {
                t.row(m.getId(), m.getRegion(), m.getStatus(), used(m, Capacity::getCpu), used(m, Capacity::getMemoryMb),
                        used(m, Capacity::getGpuCount), m.getGpuType(), m.getLastHeartbeatAt(), m.getStatusReason());
            }
            t.print(out());
            return JobCtl.OK;
        }

        /** "allocated/capacity". */
        private static String used(Machine m, Function<Capacity, Object> field) {
            Object used = m.getAllocated() == null ? null : field.apply(m.getAllocated());
            Object total = m.getCapacity() == null ? null : field.apply(m.getCapacity());
            return (used == null ? "0" : used) + "/" + (total == null ? "?" : total);
        }
    }
}
