import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.Outcome;
import io.fleetjobs.agent.process.ProcessRunner;
import io.fleetjobs.agent.process.Requested;
import io.fleetjobs.agent.resources.GpuInventory;
import io.fleetjobs.agent.resources.NvidiaSmi;
import io.fleetjobs.model.GpuAssignment;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The device check (benchmarks/device/run-gpu-check): on a machine with real NVIDIA GPUs, what the agent's detection
 * makes of nvidia-smi, and what a job that holds GPU 0, and one that holds none, sees through the agent's runner with
 * the environment the agent gives a lease (CUDA_DEVICE_ORDER, CUDA_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES, as
 * Agent#withDevices sets them). Prints what it found; it asserts nothing.
 */
public class GpuCheck {
    public static void main(String[] args) throws Exception {
        GpuInventory found = NvidiaSmi.detect(Duration.ofSeconds(30)).orElse(null);
        System.out.println("detected: " + found);
        ProcessRunner runner = new ProcessRunner(Path.of(args.length > 0 ? args[0] : "target/gpu-check"), 1 << 20, 8192,
                Duration.ofSeconds(5), InstantSource.system());
        String probe = args.length > 1 ? args[1] : "nvidia-smi -L; echo CUDA_VISIBLE_DEVICES=[$CUDA_VISIBLE_DEVICES]";
        for (List<Integer> gpus : List.of(List.of(0), List.<Integer>of())) {
            Map<String, String> env = new LinkedHashMap<>();
            String visible = GpuAssignment.visibleDevices(gpus);
            env.put("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
            env.put("CUDA_VISIBLE_DEVICES", visible);
            env.put("NVIDIA_VISIBLE_DEVICES", gpus.isEmpty() ? "void" : visible);
            Outcome out = runner.start(new AttemptKey(UUID.randomUUID(), 1), List.of("sh", "-c", probe), env,
                    new Requested(null, null, gpus)).exit().get(120, TimeUnit.SECONDS);
            System.out.println("--- a job holding GPUs " + gpus + ": exit " + out.exitCode());
            System.out.println(out.stdoutTail().strip());
            System.out.println(out.stderrTail().strip());
        }
        System.exit(0);
    }
}
