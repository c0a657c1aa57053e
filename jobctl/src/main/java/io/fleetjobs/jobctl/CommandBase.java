package io.fleetjobs.jobctl;

import io.fleetjobs.sdk.FleetJobsClient;
import java.io.PrintWriter;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import tools.jackson.databind.json.JsonMapper;

/** What every subcommand has: the root's options, the client, where to print. */
abstract class CommandBase implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    private FleetJobsClient client;

    FleetJobsClient client() {
        if (client == null) {
            client = root().client();
        }
        return client;
    }

    JsonMapper mapper() {
        return client().mapper();
    }

    boolean json() {
        return root().output == JobCtl.Output.json;
    }

    /** The root command, however deep this one is ({@code jobctl machines drain}). */
    JobCtl root() {
        CommandSpec command = spec;
        while (!(command.userObject() instanceof JobCtl root)) {
            command = command.parent();
        }
        return root;
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** Prints the API's JSON as it came. */
    void printJson(String body) {
        out().println(body.strip());
        out().flush();
    }

    <T> T read(String body, Class<T> type) {
        return mapper().readValue(body, type);
    }

    static UUID jobId(String text) {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw new JobCtl.CliException(JobCtl.NOT_FOUND, "job " + text + " not found (a job id is a UUID)");
        }
    }
}
