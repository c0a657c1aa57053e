package io.fleetjobs.jobctl;

import io.fleetjobs.sdk.model.Execution;
import io.fleetjobs.sdk.model.Job;
import io.fleetjobs.sdk.model.JobSpec;
import io.fleetjobs.sdk.model.Placement;
import io.fleetjobs.sdk.model.PlacementStrategy;
import io.fleetjobs.sdk.model.Resources;
import io.fleetjobs.sdk.model.RetryPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * {@code jobctl submit}: a spec from flags and the command after {@code --}, or from a JSON or YAML file, whose
 * fields the flags then override. Prints the new job's id (table) or the job (json).
 */
@Command(name = "submit", description = "Submits a job; prints its id (or, with -o json, the job).",
        footerHeading = "%nExamples:%n",
        footer = {"  jobctl submit --name hello --cpu 0.5 --memory 256 -- echo hi",
                "  jobctl submit --name train --cpu 8 --memory 32Gi --gpus 1 --gpu-type 'A100|H100' --region us-east-1 \\",
                "      --env EPOCHS=3 --timeout 2h --max-attempts 3 --retry-on 75 -- python train.py",
                "  jobctl submit -f spec.yaml"})
final class SubmitCommand extends CommandBase {
    @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "A JobSpec as JSON or YAML ('-' reads stdin).")
    String file;

    @Option(names = "--name", description = "The job's name (1-128 of [A-Za-z0-9._-]).")
    String name;

    @Option(names = "--queue", description = "The queue (default: default).")
    String queue;

    @Option(names = "--priority", description = "0-1000 (default 500).")
    Integer priority;

    @Option(names = "--cpu", description = "Cores, fractions allowed (0.5).")
    BigDecimal cpu;

    @Option(names = "--memory", paramLabel = "SIZE", converter = Values.SizeConverter.class,
            description = "Memory in MiB, or with a unit: 512Mi, 4Gi.")
    Long memoryMb;

    @Option(names = "--gpus", paramLabel = "N", description = "GPUs (default 0).")
    Integer gpus;

    @Option(names = "--gpu-type", paramLabel = "TYPE", description = "A GPU type, or alternatives: 'A100|H100'.")
    String gpuType;

    @Option(names = "--region", description = "Run only in this region.")
    String region;

    @Option(names = "--machine-label", paramLabel = "KEY=VALUE", description = "A label the machine must carry (repeatable).")
    Map<String, String> machineLabels;

    @Option(names = "--strategy", description = "Placement among the machines that fit: ${COMPLETION-CANDIDATES}.")
    PlacementStrategy strategy;

    @Option(names = {"-l", "--label"}, paramLabel = "KEY=VALUE", description = "A label of the job (repeatable).")
    Map<String, String> labels;

    @Option(names = {"-e", "--env"}, paramLabel = "NAME=VALUE", description = "An environment variable (repeatable).")
    Map<String, String> env;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Values.DurationConverter.class,
            description = "Time limit per attempt: 90s, 10m, 2h.")
    Duration timeout;

    @Option(names = "--network", paramLabel = "MODE", description = "host (the machine's network, the default) or none"
            + " (a network of its own with only its loopback: it reaches nothing and nothing reaches it; sandboxing"
            + " machines only).")
    String network;

    @Option(names = "--max-attempts", paramLabel = "N", description = "Attempts in all for the job's own failures (1-20; default 3).")
    Integer maxAttempts;

    @Option(names = "--retry-on", paramLabel = "CODE", split = ",", description = "Exit codes that mean 'try again' (75,76).")
    List<Integer> retryOn;

    @Option(names = "--backoff", paramLabel = "DURATION", converter = Values.DurationConverter.class,
            description = "Wait before a retry (doubles each time; default 5s).")
    Duration backoff;

    @Option(names = "--replicas", paramLabel = "N",
            description = "Run as a gang of N replicas (1-64), placed all or none, one per machine, started and ended together.")
    Integer replicas;

    @Option(names = "--gang-scope", paramLabel = "SCOPE",
            description = "Where a gang's replicas must be together: 'region' or 'label:KEY' (one value of label KEY).")
    String gangScope;

    @Option(names = "--no-preempt", description = "Never end this job to make room for a job of a higher priority.")
    boolean noPreempt;

    @Option(names = "--idempotency-key", paramLabel = "KEY", description = "Makes retrying this submit safe.")
    String idempotencyKey;

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "The command and its arguments, after --.")
    List<String> command;

    @Override
    public Integer call() {
        JobSpec spec = spec();
        String body = client().jobs().submitJobWithResponseSpec(spec, idempotencyKey).body(String.class);
        if (json()) {
            printJson(body);
        } else {
            out().println(read(body, Job.class).getId());
            out().flush();
        }
        return JobCtl.OK;
    }

    /** The spec to send: the file's (when given), with every flag given laid over it. */
    JobSpec spec() {
        JobSpec spec = file == null ? new JobSpec() : readFile();
        if (name != null) {
            spec.setName(name);
        }
        if (queue != null) {
            spec.setQueue(queue);
        }
        if (priority != null) {
            spec.setPriority(priority);
        }
        if (labels != null) {
            spec.setLabels(merged(spec.getLabels(), labels));
        }
        if (cpu != null || memoryMb != null || gpus != null || gpuType != null) {
            Resources r = spec.getResources() == null ? new Resources() : spec.getResources();
            if (cpu != null) {
                r.setCpu(cpu);
            }
            if (memoryMb != null) {
                r.setMemoryMb(memoryMb);
            }
            if (gpus != null) {
                r.setGpuCount(gpus);
            }
            if (gpuType != null) {
                r.setGpuType(gpuType);
            }
            spec.setResources(r);
        }
        if (replicas != null) {
            spec.setReplicas(replicas);
        }
        if (noPreempt) {
            spec.setPreemptible(false);
        }
        if (region != null || machineLabels != null || strategy != null || gangScope != null) {
            Placement p = spec.getPlacement() == null ? new Placement() : spec.getPlacement();
            if (region != null) {
                p.setRegion(region);
            }
            if (machineLabels != null) {
                p.setLabels(merged(p.getLabels(), machineLabels));
            }
            if (strategy != null) {
                p.setStrategy(strategy);
            }
            if (gangScope != null) {
                p.setGangScope(gangScope);
            }
            spec.setPlacement(p);
        }
        if ((command != null && !command.isEmpty()) || env != null || timeout != null || network != null) {
            Execution e = spec.getExecution() == null ? new Execution() : spec.getExecution();
            if (command != null && !command.isEmpty()) {
                e.setCommand(new ArrayList<>(command));
            }
            if (env != null) {
                e.setEnv(merged(e.getEnv(), env));
            }
            if (timeout != null) {
                e.setTimeoutSeconds(Math.toIntExact(Math.max(1, timeout.toSeconds())));
            }
            if (network != null) {
                e.setNetwork(network(network));
            }
            spec.setExecution(e);
        }
        if (maxAttempts != null || retryOn != null || backoff != null) {
            RetryPolicy r = spec.getRetry() == null ? new RetryPolicy() : spec.getRetry();
            if (maxAttempts != null) {
                r.setMaxAttempts(maxAttempts);
            }
            if (retryOn != null) {
                r.setRetryOnExitCodes(new ArrayList<>(retryOn));
            }
            if (backoff != null) {
                r.setBackoffSeconds(Math.toIntExact(backoff.toSeconds()));
            }
            spec.setRetry(r);
        }
        List<String> missing = new ArrayList<>();
        if (spec.getName() == null) {
            missing.add("--name");
        }
        if (spec.getResources() == null || spec.getResources().getCpu() == null) {
            missing.add("--cpu");
        }
        if (spec.getResources() == null || spec.getResources().getMemoryMb() == null) {
            missing.add("--memory");
        }
        if (spec.getExecution() == null || spec.getExecution().getCommand() == null
                || spec.getExecution().getCommand().isEmpty()) {
            missing.add("the command (after --)");
        }
        if (!missing.isEmpty()) {
            throw new ParameterException(super.spec.commandLine(), "missing: " + String.join(", ", missing)
                    + " (or a spec file with -f)");
        }
        return spec;
    }

    private JobSpec readFile() {
        boolean yaml = file.endsWith(".yaml") || file.endsWith(".yml");
        ObjectMapper reader = yaml ? YAMLMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build()
                : JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
        try (InputStream in = "-".equals(file) ? System.in : Files.newInputStream(Path.of(file))) {
            byte[] bytes = in.readAllBytes();
            if ("-".equals(file)) { // stdin: JSON when it looks like JSON, else YAML (a superset of JSON anyway)
                String text = new String(bytes, StandardCharsets.UTF_8).stripLeading();
                reader = text.startsWith("{") ? reader : YAMLMapper.builder()
                        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
            }
            JobSpec spec = reader.readValue(bytes, JobSpec.class);
            if (spec == null) {
                throw new JobCtl.CliException(JobCtl.USAGE, file + " is empty");
            }
            return spec;
        } catch (IOException e) {
            throw new JobCtl.CliException(JobCtl.USAGE, "cannot read " + file + ": " + e.getMessage());
        } catch (JacksonException e) {
            throw new JobCtl.CliException(JobCtl.USAGE, file + " is not a JobSpec: " + e.getOriginalMessage()
                    + (e.getPath().isEmpty() ? "" : " (at " + e.getPathReference() + ")"));
        }
    }

    private static Map<String, String> merged(Map<String, String> base, Map<String, String> over) {
        Map<String, String> m = new LinkedHashMap<>(base == null ? Map.of() : base);
        m.putAll(over);
        return m;
    }

    private Execution.NetworkEnum network(String mode) {
        try {
            return Execution.NetworkEnum.fromValue(mode);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(super.spec.commandLine(), "--network must be host or none, was '" + mode + "'");
        }
    }
}
