import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.Outcome;
import io.fleetjobs.agent.process.ProcessRunner;
import io.fleetjobs.agent.process.Requested;
import io.fleetjobs.agent.process.SandboxSettings;
import io.fleetjobs.agent.resources.GpuInventory;
import io.fleetjobs.agent.resources.NvidiaSmi;
import io.fleetjobs.model.GpuAssignment;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The device check (benchmarks/device/run-gpu-check): on a machine with real NVIDIA GPUs, what the agent's detection
 * makes of nvidia-smi, and what a job that holds GPU 0, and one that holds none, sees through the agent's runner with
 * the environment the agent gives a lease ({@link GpuAssignment#environment}): first the plain runner, then the runner
 * the agent builds for itself ({@link ProcessRunner#forMachine}, its default settings: the sandbox where it works, with
 * the other GPUs' device nodes masked, and cgroups). Prints what it found; it asserts nothing.
 *
 * <p>Arguments: the work directory (not under /tmp: a sandboxed job has a /tmp of its own, and must be able to reach
 * its directory), then the probe each job runs.
 */
public class GpuCheck {
    public static void main(String[] args) throws Exception {
        GpuInventory found = NvidiaSmi.detect(Duration.ofSeconds(30)).orElse(null);
        System.out.println("detected: " + found);
        Path work = Path.of(args.length > 0 ? args[0] : "target/gpu-check").toAbsolutePath();
        String probe = args.length > 1 ? args[1] : "nvidia-smi -L; echo CUDA_VISIBLE_DEVICES=[$CUDA_VISIBLE_DEVICES]";
        InstantSource clock = InstantSource.system();
        ProcessRunner plain = new ProcessRunner(work.resolve("plain"), 1 << 20, 8192, Duration.ofSeconds(5), clock);
        run("plain runner", plain, found, probe);
        ProcessRunner agents = ProcessRunner.forMachine(work.resolve("agent"), 1 << 20, 8192, Duration.ofSeconds(5),
                clock, ProcessRunner.DEFAULT_PASS_ENV, SandboxSettings.DEFAULT.forMachine("gpu-check"));
        System.out.println("=== the agent's runner: isolation " + agents.isolation().wire());
        run("agent's runner", agents, found, "id -u; ls -l /dev/nvidia* 2>&1; head -c 1 /dev/nvidia0 >/dev/null 2>&1"
                + " && echo nvidia0 opened || echo nvidia0 not opened; " + probe);
        System.exit(0);
    }

    /** A job holding GPU 0, then one holding none, each running the probe; what they printed. */
    private static void run(String what, ProcessRunner runner, GpuInventory found, String probe) throws Exception {
        for (List<Integer> gpus : List.of(List.of(0), List.<Integer>of())) {
            List<Integer> minors = gpus.stream().map(i -> found == null ? i : found.minors().getOrDefault(i, i)).toList();
            Outcome out = runner.start(new AttemptKey(UUID.randomUUID(), 1), List.of("sh", "-c", probe),
                    GpuAssignment.environment(gpus), new Requested(null, null, minors)).exit().get(120, TimeUnit.SECONDS);
            System.out.println("--- " + what + ", a job holding GPUs " + gpus + ": exit " + out.exitCode()
                    + (out.breach() == null ? "" : " " + out.breach()));
            System.out.println(out.stdoutTail().strip());
            System.out.println(out.stderrTail().strip());
        }
    }
}
