package io.fleetjobs.jobctl;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.sdk.model.Execution;
import io.fleetjobs.sdk.model.JobSpec;
import io.fleetjobs.sdk.model.JobState;
import io.fleetjobs.sdk.model.PlacementStrategy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** jobctl's command line as picocli reads it: every command and flag, and usage errors (exit 3) before any call. */
class JobCtlParsingTest {
    private static final String ID = "6f1c2b4e-8a0d-4e55-9a57-2f4a1d0c9b11";

    private static ParseResult parse(String... args) {
        return JobCtl.commandLine().parseArgs(args);
    }

    @SuppressWarnings("unchecked")
    private static <T> T command(ParseResult result) {
        return (T) result.subcommand().commandSpec().userObject();
    }

    @Test
    void submitTakesEveryFlagIntoTheSpec() {
        SubmitCommand submit = command(parse("submit", "--name", "train", "--queue", "batch", "--priority", "700",
                "--cpu", "0.5", "--memory", "4Gi", "--gpus", "2", "--gpu-type", "A100|H100", "--region", "us-east-1",
                "--machine-label", "pool=batch", "--machine-label", "zone=a", "--strategy", "spread",
                "-l", "team=vision", "--label", "run=7", "-e", "EPOCHS=3", "--env", "LR=0.1", "--timeout", "2h",
                "--max-attempts", "4", "--retry-on", "75,76", "--backoff", "10s", "--idempotency-key", "k-1",
                "--", "python", "train.py", "--epochs", "3"));
        JobSpec spec = submit.spec();
        assertThat(spec.getName()).isEqualTo("train");
        assertThat(spec.getQueue()).isEqualTo("batch");
        assertThat(spec.getPriority()).isEqualTo(700);
        assertThat(spec.getResources().getCpu()).isEqualByComparingTo(new BigDecimal("0.5"));
        assertThat(spec.getResources().getMemoryMb()).isEqualTo(4096L);
        assertThat(spec.getResources().getGpuCount()).isEqualTo(2);
        assertThat(spec.getResources().getGpuType()).isEqualTo("A100|H100");
        assertThat(spec.getPlacement().getRegion()).isEqualTo("us-east-1");
        assertThat(spec.getPlacement().getLabels()).containsExactly(Map.entry("pool", "batch"), Map.entry("zone", "a"));
        assertThat(spec.getPlacement().getStrategy()).isEqualTo(PlacementStrategy.SPREAD);
        assertThat(spec.getLabels()).containsExactly(Map.entry("team", "vision"), Map.entry("run", "7"));
        assertThat(spec.getExecution().getEnv()).containsExactly(Map.entry("EPOCHS", "3"), Map.entry("LR", "0.1"));
        assertThat(spec.getExecution().getCommand()).as("what follows -- is the command, flags and all")
                .containsExactly("python", "train.py", "--epochs", "3");
        assertThat(spec.getExecution().getTimeoutSeconds()).isEqualTo(7200);
        assertThat(spec.getRetry().getMaxAttempts()).isEqualTo(4);
        assertThat(spec.getRetry().getRetryOnExitCodes()).containsExactly(75, 76);
        assertThat(spec.getRetry().getBackoffSeconds()).isEqualTo(10);
        assertThat(submit.idempotencyKey).isEqualTo("k-1");
    }

    @Test
    void submitTakesAGangAndAnOptOutOfPreemption() {
        SubmitCommand submit = command(parse("submit", "--name", "ddp", "--cpu", "4", "--memory", "8Gi", "--replicas", "8",
                "--gang-scope", "label:rack", "--no-preempt", "--", "torchrun", "train.py"));
        JobSpec spec = submit.spec();
        assertThat(spec.getReplicas()).isEqualTo(8);
        assertThat(spec.getPlacement().getGangScope()).isEqualTo("label:rack");
        assertThat(spec.getPreemptible()).isFalse();

        JobSpec plain = ((SubmitCommand) command(parse("submit", "--name", "n", "--cpu", "1", "--memory", "512", "--",
                "true"))).spec();
        assertThat(plain.getReplicas()).as("the contract's default").isEqualTo(1);
        assertThat(plain.getPreemptible()).isTrue();
    }

    @Test
    void submitTakesANetworkOfItsOwnAndRefusesAModeThatDoesNotExist() {
        JobSpec spec = ((SubmitCommand) command(parse("submit", "--name", "n", "--cpu", "1", "--memory", "512",
                "--network", "none", "--", "true"))).spec();
        assertThat(spec.getExecution().getNetwork()).isEqualTo(Execution.NetworkEnum.NONE);
        SubmitCommand wrong = command(parse("submit", "--name", "n", "--cpu", "1", "--memory", "512", "--network", "bridge",
                "--", "true"));
        Assertions.assertThatThrownBy(wrong::spec)
                .isInstanceOf(picocli.CommandLine.ParameterException.class).hasMessageContaining("--network");
    }

    @Test
    void submitLeavesUnsetFieldsToTheContractsDefaults() {
        SubmitCommand submit = command(parse("submit", "--name", "n", "--cpu", "1", "--memory", "512", "--", "true"));
        JobSpec spec = submit.spec();
        assertThat(spec.getResources().getMemoryMb()).isEqualTo(512L);
        assertThat(spec.getQueue()).as("the generated model's default, the API's too").isEqualTo("default");
        assertThat(spec.getPriority()).isEqualTo(500);
        assertThat(spec.getResources().getGpuCount()).isZero();
        assertThat(spec.getPlacement()).as("anywhere").isNull();
        assertThat(spec.getRetry()).isNull();
        assertThat(spec.getLabels()).isNullOrEmpty();
        assertThat(spec.getExecution().getEnv()).isNullOrEmpty();
    }

    @Test
    void sizesAndDurationsInTheirUnits() {
        assertThat(Values.mebibytes("256")).isEqualTo(256);
        assertThat(Values.mebibytes("256Mi")).isEqualTo(256);
        assertThat(Values.mebibytes("2G")).isEqualTo(2048);
        assertThat(Values.mebibytes("1Ti")).isEqualTo(1024 * 1024);
        assertThat(Values.duration("90")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Values.duration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Values.duration("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(Values.duration("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(Values.duration("PT1M30S")).as("ISO-8601 too").isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void theReadingCommandsTakeTheirArguments() {
        JobCommands.Get get = command(parse("get", ID));
        assertThat(get.id).isEqualTo(ID);
        JobCommands.ListJobs list = command(parse("list", "--state", "running", "--limit", "10", "--page-token", "t1", "--all"));
        assertThat(list.state).as("case-insensitive").isEqualTo(JobState.RUNNING);
        assertThat(list.limit).isEqualTo(10);
        assertThat(list.pageToken).isEqualTo("t1");
        assertThat(list.all).isTrue();
        JobCommands.ListJobs plain = command(parse("list"));
        assertThat(plain.limit).isEqualTo(50);
        assertThat(plain.state).isNull();
        assertThat(plain.all).isFalse();
        assertThat(((JobCommands.Cancel) command(parse("cancel", ID))).id).isEqualTo(ID);
        assertThat(((JobCommands.Attempts) command(parse("attempts", ID))).id).isEqualTo(ID);
        assertThat(((JobCommands.Events) command(parse("events", ID))).id).isEqualTo(ID);
        JobCommands.Logs logs = command(parse("logs", ID, "-a", "2"));
        assertThat(logs.attempt).isEqualTo(2);
        assertThat(((JobCommands.Logs) command(parse("logs", ID, "--attempt", "3"))).attempt).isEqualTo(3);
        assertThat(((JobCommands.Logs) command(parse("logs", ID))).attempt).isNull();
        WatchCommand watch = command(parse("watch", ID, "--interval", "2s", "--for", "5m"));
        assertThat(watch.interval).isEqualTo(Duration.ofSeconds(2));
        assertThat(watch.limit).isEqualTo(Duration.ofMinutes(5));
        WatchCommand defaults = command(parse("watch", ID));
        assertThat(defaults.interval).isEqualTo(Duration.ofMillis(500));
        assertThat(defaults.limit).isNull();
        assertThat((Object) command(parse("machines"))).isInstanceOf(JobCommands.Machines.class);
    }

    @Test
    void theRootOptionsGoBeforeOrAfterTheCommand() {
        ParseResult before = parse("--url", "http://api:8080", "--token", "fj_x", "-o", "json", "get", ID);
        JobCtl root = (JobCtl) before.commandSpec().userObject();
        assertThat(root.url).isEqualTo("http://api:8080");
        assertThat(root.token).isEqualTo("fj_x");
        assertThat(root.output).isEqualTo(JobCtl.Output.json);

        ParseResult after = parse("get", ID, "--url", "http://other:8080", "--token", "fj_y", "--output", "JSON");
        JobCommands.Get get = command(after);
        assertThat(get.root().url).isEqualTo("http://other:8080");
        assertThat(get.root().token).isEqualTo("fj_y");
        assertThat(get.json()).isTrue();

        JobCtl defaults = (JobCtl) parse("machines").commandSpec().userObject();
        assertThat(defaults.output).isEqualTo(JobCtl.Output.table);
        assertThat(defaults.url).as("JOBS_URL or the local gateway").isEqualTo(
                System.getenv("JOBS_URL") == null ? "http://localhost:8080" : System.getenv("JOBS_URL"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "bogus",
            "list --bogus",
            "list --state NOT_A_STATE",
            "list --limit many",
            "get",
            "get " + ID + " extra",
            "logs " + ID + " -a one",
            "watch " + ID + " --interval soon",
            "submit --name n --cpu 1 --memory lots -- true",
            "submit --name n --cpu 1 --memory 64 --timeout forever -- true",
            "submit --name n --cpu lots --memory 64 -- true",
            "submit --strategy random --name n --cpu 1 --memory 64 -- true",
            "submit --cpu 1",
            "submit --name n --cpu 1 --memory 64",
            "-o xml list"})
    void usageErrorsExitWithThreeAndCallNothing(String line) {
        StringWriter err = new StringWriter();
        CommandLine cmd = JobCtl.commandLine();
        cmd.setOut(new PrintWriter(new StringWriter(), true));
        cmd.setErr(new PrintWriter(err, true));
        List<String> args = new ArrayList<>(List.of("--url", "http://127.0.0.1:9")); // nothing listens there
        args.addAll(List.of(line.split(" ")));
        assertThat(cmd.execute(args.toArray(String[]::new))).as(line + ": " + err).isEqualTo(JobCtl.USAGE);
        assertThat(err.toString()).startsWith("jobctl: ").doesNotContain("cannot reach");
    }

    @Test
    void helpAndVersionExitZeroAndHelpListsTheExitCodes() {
        StringWriter out = new StringWriter();
        CommandLine cmd = JobCtl.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        assertThat(cmd.execute("--help")).isZero();
        assertThat(out.toString()).contains("submit", "watch", "machines", "Exit codes:", "4   not found (404)", "JOBS_TOKEN");
        assertThat(cmd.execute("--version")).isZero();
        assertThat(out.toString()).contains("jobctl 0.1.0");
        StringWriter submitHelp = new StringWriter();
        CommandLine again = JobCtl.commandLine();
        again.setOut(new PrintWriter(submitHelp, true));
        assertThat(again.execute("help", "submit")).isZero();
        assertThat(submitHelp.toString()).contains("--gpu-type", "--machine-label", "--retry-on", "--idempotency-key");
    }
}
