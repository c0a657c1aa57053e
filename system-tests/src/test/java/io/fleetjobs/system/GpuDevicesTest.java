package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.testsupport.Api;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * GPUs are devices: an agent whose {@code nvidia-smi} (a scripted stand-in listing eight H100s) reports each device
 * offers them by index, the scheduler gives each attempt its own, and each job sees exactly its own. What a job saw
 * is read from the job's own output, and "never shared" is checked against the times the jobs themselves printed.
 */
class GpuDevicesTest {
    private static final Pattern SAW = Pattern.compile(
            "cuda=\\[(?<cuda>[^]]*)] nvidia=\\[(?<nvidia>[^]]*)] order=\\[(?<order>[^]]*)] start=(?<start>\\d+)\\s+end=(?<end>\\d+)");

    private static Platform platform;
    private static Api user;

    @BeforeAll
    static void start() throws IOException {
        Path bin = Files.createDirectories(Path.of("target", "gpu-test-bin"));
        Path smi = bin.resolve("nvidia-smi");
        StringBuilder listing = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            listing.append("%d, GPU-%08d-aaaa-bbbb-cccc-dddddddddddd, NVIDIA H100 80GB HBM3, 81559%n".formatted(i, i));
        }
        Files.writeString(smi, "#!/bin/sh\ncat <<'END'\n" + listing + "END\n");
        Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
        platform = new Platform(Map.of());
        user = platform.tenant("gpus");
        platform.agent("gpu-machine-1", platform.schedulerPort(),
                Map.of("PATH", bin.toAbsolutePath() + ":" + System.getenv("PATH")),
                "--jobs.worker.gpu-count=", "--jobs.worker.cpu=8");
    }

    @AfterAll
    static void stop() {
        platform.close();
    }

    private record Run(String id, int asked, List<Integer> devices, long start, long end) {
        boolean overlapsInTime(Run other) {
            return start < other.end && other.start < end;
        }
    }

    @Test
    void tenJobsOfOneTwoAndFourGpusNeverShareADeviceAndEachSeesExactlyItsOwn() {
        List<Integer> asks = List.of(1, 1, 1, 1, 2, 2, 2, 4, 4, 4); // 22 GPUs on a machine of 8: they take turns
        Map<String, Integer> submitted = new LinkedHashMap<>();
        for (int i = 0; i < asks.size(); i++) {
            submitted.put(submit("gpu-" + i, asks.get(i), """
                    s=$(date +%s%N); echo "cuda=[$CUDA_VISIBLE_DEVICES] nvidia=[$NVIDIA_VISIBLE_DEVICES] \
                    order=[$CUDA_DEVICE_ORDER] start=$s"; sleep 1; echo "end=$(date +%s%N)\""""), asks.get(i));
        }
        List<Run> runs = new ArrayList<>();
        submitted.forEach((id, asked) -> {
            awaitState(id, "SUCCEEDED");
            String out = user.get("/api/v1/jobs/" + id + "/attempts/1/logs").json().get("stdout").asString();
            Matcher m = SAW.matcher(out);
            assertThat(m.find()).as("job %s printed what it saw: %s", id, out).isTrue();
            List<Integer> devices = indices(m.group("cuda"));
            assertThat(devices).as("job %s asked for %d GPUs", id, asked).hasSize(asked).doesNotHaveDuplicates()
                    .allMatch(d -> d >= 0 && d < 8);
            assertThat(indices(m.group("nvidia"))).as("job %s: NVIDIA_VISIBLE_DEVICES", id).isEqualTo(devices);
            assertThat(m.group("order")).isEqualTo("PCI_BUS_ID");
            JsonNode attempt = user.get("/api/v1/jobs/" + id + "/attempts").json().get("items").get(0);
            List<Integer> held = new ArrayList<>();
            attempt.get("gpus").forEach(g -> held.add(g.asInt()));
            assertThat(held).as("the attempt in the API names the devices the job saw").isEqualTo(devices);
            runs.add(new Run(id, asked, devices, Long.parseLong(m.group("start")), Long.parseLong(m.group("end"))));
        });
        boolean concurrent = false;
        for (Run a : runs) {
            for (Run b : runs) {
                if (a == b || !a.overlapsInTime(b)) {
                    continue;
                }
                concurrent = true;
                Set<Integer> shared = new HashSet<>(a.devices());
                shared.retainAll(b.devices());
                assertThat(shared).as("jobs %s %s and %s %s ran at the same time", a.id(), a.devices(), b.id(), b.devices())
                        .isEmpty();
            }
        }
        assertThat(concurrent).as("some jobs ran at the same time (else this proves nothing)").isTrue();
    }

    @Test
    void aJobWithoutGpusOnAGpuMachineSeesNone() {
        String id = submit("no-gpu", 0, "echo \"cuda=[${CUDA_VISIBLE_DEVICES-unset}] nvidia=[${NVIDIA_VISIBLE_DEVICES-unset}]\"");
        awaitState(id, "SUCCEEDED");
        assertThat(user.get("/api/v1/jobs/" + id + "/attempts/1/logs").json().get("stdout").asString())
                .isEqualTo("cuda=[] nvidia=[void]\n");
    }

    @Test
    void theMachineListsEachDeviceAsNvidiaSmiReportedIt() {
        await().atMost(Duration.ofSeconds(60)).until(() -> platform.admin.get("/api/v1/machines").json().get("items").size() == 1);
        JsonNode gpus = platform.admin.get("/api/v1/machines").json().get("items").get(0).get("gpus");
        assertThat(gpus.size()).isEqualTo(8);
        IntStream.range(0, 8).forEach(i -> {
            assertThat(gpus.get(i).get("index").asInt()).isEqualTo(i);
            assertThat(gpus.get(i).get("uuid").asString()).isEqualTo("GPU-%08d-aaaa-bbbb-cccc-dddddddddddd".formatted(i));
            assertThat(gpus.get(i).get("model").asString()).isEqualTo("NVIDIA H100 80GB HBM3");
            assertThat(gpus.get(i).get("memoryMb").asLong()).isEqualTo(81559);
        });
    }

    private static String submit(String name, int gpus, String script) {
        var created = user.post("/api/v1/jobs", """
                {"name": "%s", "resources": {"cpu": 0.1, "memoryMb": 32, "gpuCount": %d},
                 "execution": {"command": ["sh", "-c", %s]}}""".formatted(name, gpus, quoted(script)));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.field("id");
    }

    private static String quoted(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ") + "\"";
    }

    private static void awaitState(String id, String state) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100))
                .until(() -> state.equals(user.get("/api/v1/jobs/" + id).field("state")));
    }

    private static List<Integer> indices(String list) {
        return list.isBlank() ? List.of() : Arrays.stream(list.split(",")).map(String::trim).map(Integer::valueOf).toList();
    }
}
