package io.fleetjobs.jobctl;

import io.fleetjobs.sdk.FleetJobsClient;
import io.fleetjobs.sdk.model.FieldError;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClientResponseException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** {@code jobctl}: the FleetJobs API from a shell. Exit codes are part of the interface (see {@link #exitCode}). */
// scope INHERIT: every command takes --help and --version too (jobctl submit --help)
@Command(name = "jobctl", mixinStandardHelpOptions = true, scope = ScopeType.INHERIT, version = "jobctl 0.1.0",
        description = "Submits, follows and cancels FleetJobs jobs.",
        subcommands = {SubmitCommand.class, JobCommands.Get.class, JobCommands.ListJobs.class, JobCommands.Cancel.class,
                JobCommands.Attempts.class, JobCommands.Events.class, JobCommands.Logs.class, WatchCommand.class,
                JobCommands.Machines.class, JobCommands.OwnTenant.class, AdminCommands.Admin.class, CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
                "0:success (watch: the job SUCCEEDED)",
                "1:the job FAILED (watch), or another error",
                "2:the job was CANCELED (watch)",
                "3:usage error: bad options, or a spec the API rejected (400, 413)",
                "4:not found (404)",
                "5:unauthorized or forbidden (401, 403)",
                "6:conflict (409)",
                "7:unavailable: the API cannot be reached, 429 or 5xx"},
        footerHeading = "%nEnvironment:%n",
        footer = {"  JOBS_URL    the API's base URL (default http://localhost:8080)",
                "  JOBS_TOKEN  the bearer token: an API key (or a JWT, where the gateway has an issuer)"})
public final class JobCtl {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int CANCELED = 2;
    public static final int USAGE = 3;
    public static final int NOT_FOUND = 4;
    public static final int UNAUTHORIZED = 5;
    public static final int CONFLICT = 6;
    public static final int UNAVAILABLE = 7;

    enum Output { table, json }

    @Option(names = "--url", scope = ScopeType.INHERIT, paramLabel = "URL",
            defaultValue = "${env:JOBS_URL:-http://localhost:8080}",
            description = "The API's base URL (JOBS_URL; default ${DEFAULT-VALUE}).")
    String url;

    @Option(names = "--token", scope = ScopeType.INHERIT, paramLabel = "TOKEN", defaultValue = "${env:JOBS_TOKEN}",
            description = "The bearer token (JOBS_TOKEN).", showDefaultValue = CommandLine.Help.Visibility.NEVER)
    String token;

    @Option(names = {"-o", "--output"}, scope = ScopeType.INHERIT, paramLabel = "FORMAT", defaultValue = "table",
            description = "table or json (the API's JSON); default ${DEFAULT-VALUE}.")
    Output output;

    FleetJobsClient client() {
        return FleetJobsClient.connect(url, token);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with jobctl's exit codes and error reporting; tests set its out and err. */
    public static CommandLine commandLine() {
        JobCtl jobctl = new JobCtl();
        CommandLine cmd = new CommandLine(jobctl);
        cmd.setCaseInsensitiveEnumValuesAllowed(true);
        cmd.setParameterExceptionHandler((e, args) -> {
            PrintWriter err = e.getCommandLine().getErr();
            err.println("jobctl: " + e.getMessage());
            if (!CommandLine.UnmatchedArgumentException.printSuggestions(e, err)) {
                err.println("Try '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            }
            return USAGE;
        });
        cmd.setExecutionExceptionHandler((e, command, parseResult) -> {
            PrintWriter err = command.getErr();
            int code = exitCode(e);
            err.println("jobctl: " + describe(e, jobctl.url));
            if (e instanceof RestClientResponseException response) {
                FleetJobsClient.problem(response).ifPresent(problem -> {
                    if (problem.getErrors() != null) {
                        for (FieldError field : problem.getErrors()) {
                            err.println("  " + field.getField() + ": " + field.getMessage());
                        }
                    }
                });
            }
            err.flush();
            return code;
        });
        return cmd;
    }

    /** The exit code scripts see for an error. */
    static int exitCode(Exception e) {
        if (e instanceof RestClientResponseException r) {
            int status = r.getStatusCode().value();
            return switch (status) {
                case 400, 413, 422 -> USAGE;
                case 401, 403 -> UNAUTHORIZED;
                case 404, 410 -> NOT_FOUND;
                case 409 -> CONFLICT;
                case 429 -> UNAVAILABLE;
                default -> status >= 500 ? UNAVAILABLE : FAILED;
            };
        }
        if (e instanceof ResourceAccessException) {
            return UNAVAILABLE;
        }
        if (e instanceof CliException c) {
            return c.exitCode();
        }
        return FAILED;
    }

    private static String describe(Exception e, String url) {
        if (e instanceof RestClientResponseException r) {
            var problem = FleetJobsClient.problem(r);
            String detail = problem.map(p -> p.getDetail()).orElse(null);
            return r.getStatusCode().value() + " " + r.getStatusText() + (detail == null ? "" : ": " + detail);
        }
        if (e instanceof ResourceAccessException) {
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            String why = switch (cause) {
                case ConnectException c -> "nothing answers there (connection refused)";
                case ClosedChannelException c -> "nothing answers there (connection refused or closed)";
                case UnknownHostException u -> "unknown host " + u.getMessage();
                case HttpTimeoutException t -> "it did not answer in time";
                default -> cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
            };
            return "cannot reach the API at " + url + " (--url or JOBS_URL): " + why;
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    /** An error of jobctl's own with the exit code it means. */
    static final class CliException extends RuntimeException {
        private final int exitCode;

        CliException(int exitCode, String message) {
            super(message);
            this.exitCode = exitCode;
        }

        int exitCode() {
            return exitCode;
        }
    }
}
