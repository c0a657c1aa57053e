package io.fleetjobs.deploy.compose;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/compose/secrets.sh, run with {@code sh} as compose's one-shot "secrets" service runs it, on two folders of
 * a temporary directory: random secrets on the first start, the same ones on the next, a given value wins, and the
 * agents' folder holds the join token alone, readable by its owner only.
 */
class SecretsScriptTest {
    private static final List<String> CONTROL_PLANE =
            List.of("JOBS_DB_PASSWORD", "JOBS_INTERNAL_SECRET", "JOBS_BOOTSTRAP_ADMIN_TOKEN", "JOBS_AGENT_JOIN_TOKEN");

    @TempDir
    Path dir;

    private void run(Map<String, String> given) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("sh", SecretsScript.path().toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("out.log").toFile());
        builder.environment().keySet().removeIf(k -> k.startsWith("JOBS_") || k.startsWith("FLEETJOBS_"));
        builder.environment().put("FLEETJOBS_CONTROL_SECRETS", dir.resolve("control").toString());
        builder.environment().put("FLEETJOBS_AGENT_SECRETS", dir.resolve("agent").toString());
        builder.environment().putAll(given);
        Process p = builder.start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("out.log"))).isZero();
    }

    private String read(String folder, String name) throws IOException {
        return Files.readString(dir.resolve(folder).resolve(name), StandardCharsets.UTF_8);
    }

    private static Set<String> names(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return Set.copyOf(files.map(f -> f.getFileName().toString()).toList());
        }
    }

    @Test
    void theFirstStartGeneratesEachSecretAtRandomAndTheNextKeepsThem() throws Exception {
        run(Map.of());
        assertThat(names(dir.resolve("control"))).containsExactlyInAnyOrderElementsOf(CONTROL_PLANE);
        Set<String> values = new HashSet<>();
        for (String name : CONTROL_PLANE) {
            String value = read("control", name);
            assertThat(value).as(name).matches("[0-9a-f]{64}"); // 32 bytes, no newline
            values.add(value);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("control").resolve(name))))
                    .as("%s: read by the services' unprivileged users, written by nobody", name).isEqualTo("r--r--r--");
        }
        assertThat(values).as("four different secrets").hasSize(4);

        run(Map.of());
        for (String name : CONTROL_PLANE) {
            assertThat(values).as("%s kept on the next start", name).contains(read("control", name));
        }
    }

    @Test
    void aValueGivenInTheEnvironmentWinsOverTheOneKept() throws Exception {
        run(Map.of());
        String admin = read("control", "JOBS_BOOTSTRAP_ADMIN_TOKEN");
        run(Map.of("JOBS_INTERNAL_SECRET", "an-internal-secret-chosen-by-the-operator", "JOBS_AGENT_JOIN_TOKEN", "join-me"));
        assertThat(read("control", "JOBS_INTERNAL_SECRET")).isEqualTo("an-internal-secret-chosen-by-the-operator");
        assertThat(read("control", "JOBS_AGENT_JOIN_TOKEN")).isEqualTo("join-me");
        assertThat(read("agent", "jobs.worker.join-token")).isEqualTo("join-me");
        assertThat(read("control", "JOBS_BOOTSTRAP_ADMIN_TOKEN")).as("what was not given is kept").isEqualTo(admin);
    }

    @Test
    void theAgentsFolderHoldsTheJoinTokenAloneReadableByItsOwner() throws Exception {
        run(Map.of());
        Path agent = dir.resolve("agent");
        assertThat(names(agent)).containsExactly("jobs.worker.join-token");
        assertThat(read("agent", "jobs.worker.join-token")).isEqualTo(read("control", "JOBS_AGENT_JOIN_TOKEN"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(agent.resolve("jobs.worker.join-token"))))
                .as("the agent (root) reads it; the jobs it starts, as other users, do not").isEqualTo("r--------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(agent))).isEqualTo("rwx------");
    }
}
