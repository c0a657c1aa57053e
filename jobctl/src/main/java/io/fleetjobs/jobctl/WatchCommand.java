package io.fleetjobs.jobctl;

import io.fleetjobs.sdk.FleetJobsClient;
import io.fleetjobs.sdk.model.Job;
import io.fleetjobs.sdk.model.JobState;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jobctl watch}: prints each state change of a job as it happens (those before too) until the job ends, from
 * the job's live events (Server-Sent Events; polling a server without them);
 * the exit code is the outcome: 0 SUCCEEDED, 1 FAILED, 2 CANCELED.
 */
@Command(name = "watch", description = {"Follows a job until it ends, printing each state change.",
        "Exits 0 when it SUCCEEDED, 1 when it FAILED, 2 when it was CANCELED."})
final class WatchCommand extends CommandBase {
    @Parameters(paramLabel = "JOB_ID")
    String id;

    @Option(names = "--interval", paramLabel = "DURATION", converter = Values.DurationConverter.class, defaultValue = "500ms",
            description = "How often to look when the server sends no live events (default ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(names = "--for", paramLabel = "DURATION", converter = Values.DurationConverter.class,
            description = "Give up after this long (exit 1); default: wait as long as it takes.")
    Duration limit;

    @Override
    public Integer call() throws InterruptedException {
        FleetJobsClient watcher = client().withPollInterval(interval);
        Job job;
        try {
            job = watcher.watch(jobId(id), limit == null ? Duration.ofDays(3650) : limit, event -> {
                if (json()) {
                    out().println(mapper().writeValueAsString(event));
                } else {
                    out().println(event.getAt() + "  " + (event.getFrom() == null ? "" : event.getFrom() + " -> ")
                            + event.getTo() + (event.getReason() == null ? "" : "  " + Table.printable(event.getReason())));
                }
                out().flush();
            });
        } catch (TimeoutException e) {
            throw new JobCtl.CliException(JobCtl.FAILED, e.getMessage());
        }
        if (!json()) {
            StringBuilder end = new StringBuilder("job " + job.getId() + " " + job.getState());
            if (job.getFailureReason() != null) {
                end.append(": ").append(job.getFailureReason());
            }
            if (job.getExitCode() != null) {
                end.append(" (exit code ").append(job.getExitCode()).append(')');
            }
            out().println(end);
            out().flush();
        }
        return job.getState() == JobState.SUCCEEDED ? JobCtl.OK
                : job.getState() == JobState.CANCELED ? JobCtl.CANCELED : JobCtl.FAILED;
    }
}
