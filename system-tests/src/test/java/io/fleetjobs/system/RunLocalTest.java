package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.testsupport.Api;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/run-local} as a user runs it: it comes up and prints the URL and the admin token, a job
 * runs to success, and SIGTERM leaves no process and no port behind. The jars are the ones this build
 * made ({@code JOBS_LOCAL_NO_BUILD=1}); the home is fresh, so PostgreSQL is initialised too (and the jars
 * run as they are: class-data archives would only pay from a second run on).
 */
class RunLocalTest {
    private final List<String> output = new ArrayList<>();
    private Process runLocal;
    private Path home;
    private boolean passed;

    @Test
    void startsThePlatformRunsAJobAndLeavesNothingBehindOnSigterm() throws Exception {
        home = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "run-local-");
        int offset = LocalMode.freePortOffset();
        ProcessBuilder builder = new ProcessBuilder(LocalMode.REPOSITORY.resolve("bin/run-local").toString())
                .directory(LocalMode.REPOSITORY.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        List.of("JOBS_DB_URL", "JOBS_KAFKA_BOOTSTRAP_SERVERS", "JOBS_BOOTSTRAP_ADMIN_TOKEN", "JOBS_AGENT_JOIN_TOKEN")
                .forEach(env::remove);
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("JOBS_LOCAL_HOME", home.toString());
        env.put("JOBS_LOCAL_WORKERS", "1");
        env.put("JOBS_LOCAL_NO_BUILD", "1");
        env.put("JOBS_LOCAL_CDS", "0"); // class-data archives pay from a home's second run on; this home is new
        env.put("JOBS_LOCAL_PORT_OFFSET", Integer.toString(offset));
        runLocal = builder.start();
        Thread.ofPlatform().daemon().name("run-local-output").start(this::collectOutput);

        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
            assertThat(runLocal.isAlive()).as("run-local exited early:\n%s", output()).isTrue();
            return output().contains("Ctrl-C stops everything.");
        });
        URI url = URI.create(field("URL"));
        String adminToken = field("admin token");
        List<Integer> ports = Arrays.stream(field("ports").split(" ")).map(Integer::valueOf).toList();
        assertThat(url.getPort()).as("the gateway, or job-service where it is not built").isIn(8080 + offset, 8081 + offset);
        assertThat(ports).as("services and their management ports").contains(8081 + offset, 8082 + offset, 9081 + offset, 9082 + offset);
        assertThat(Files.readString(home.resolve("admin-token")).strip()).isEqualTo(adminToken);

        Api admin = new Api(url.getPort(), adminToken);
        assertThat(admin.post("/api/v1/admin/tenants", "{\"name\": \"local\"}").status()).isEqualTo(201);
        Api user = admin.as(admin.post("/api/v1/admin/tenants/local/api-keys", "{}").field("key"));
        var created = user.post("/api/v1/jobs", """
                {"name":"hi","resources":{"cpu":0.1,"memoryMb":16},"execution":{"command":["sh","-c","echo hi"]}}""");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.field("id");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> "SUCCEEDED".equals(user.get("/api/v1/jobs/" + id).field("state")));
        assertThat(user.get("/api/v1/jobs/" + id).field("machineId")).isEqualTo("local-1");
        // the services and their management ports listen on loopback only: from another address of this machine
        // (as a neighbour on its network would come) nothing answers. The summary's ports hold the management ports
        // already (a service's port + 1000); adding 1000 again once named ports past 65535 when the offset was high
        for (InetAddress address : LocalMode.nonLoopbackAddresses()) {
            assertThat(ports.stream().filter(p -> LocalMode.answers(address, p)))
                    .as("ports answering on %s", address).isEmpty();
        }

        List<ProcessHandle> platform = runLocal.descendants().toList();
        assertThat(platform).as("services, the broker and the agent").hasSizeGreaterThanOrEqualTo(4);
        runLocal.toHandle().destroy(); // SIGTERM
        await().atMost(Duration.ofSeconds(60)).until(() -> !runLocal.isAlive());
        assertThat(output()).contains("stopped.");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(platform.stream().filter(LocalMode::alive).map(LocalMode::describe)).isEmpty();
            assertThat(LocalMode.processesNaming(home)).as("PostgreSQL and anything else run from the home").isEmpty();
            assertThat(ports.stream().filter(p -> !LocalMode.portFree(p))).as("ports still taken").isEmpty();
        });
        assertThat(home.resolve("run-local.pid")).doesNotExist();
        passed = true;
    }

    @AfterEach
    void endWhatIsLeft() {
        if (runLocal != null && runLocal.isAlive()) {
            runLocal.descendants().forEach(ProcessHandle::destroyForcibly);
            runLocal.destroyForcibly();
        }
        if (home != null) {
            LocalMode.processesNaming(home).forEach(ProcessHandle::destroyForcibly);
            if (passed) {
                LocalMode.deleteTree(home); // PostgreSQL's binaries and data; kept for reading when the test failed
            }
        }
    }

    private void collectOutput() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(runLocal.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                synchronized (output) {
                    output.add(line);
                }
            }
        } catch (IOException e) {
            // the process is gone
        }
    }

    private String output() {
        synchronized (output) {
            return String.join("\n", output);
        }
    }

    /** A value of the summary run-local prints: {@code "  admin token   <value>   (generated, …)"}. */
    private String field(String name) {
        Matcher m = Pattern.compile("(?m)^  " + Pattern.quote(name) + " +(\\S.*?)(?:   \\(.*)?$").matcher(output());
        assertThat(m.find()).as("'%s' in the output:\n%s", name, output()).isTrue();
        return m.group(1).strip();
    }
}
