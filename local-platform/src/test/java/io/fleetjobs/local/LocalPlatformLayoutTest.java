package io.fleetjobs.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a platform is laid out before anything starts: which components, which ports, which tokens, one launcher per home. */
class LocalPlatformLayoutTest {
    @TempDir
    Path repository;
    @TempDir
    Path home;

    private void build(String... jars) throws IOException {
        for (String jar : jars) {
            Files.createDirectories(repository.resolve(jar).getParent());
            Files.writeString(repository.resolve(jar), "not really a jar");
        }
    }

    private LocalPlatform.Builder platform() {
        return LocalPlatform.builder().home(home).repository(repository).portOffset(2_000);
    }

    private void buildRequired() throws IOException {
        build("job-service/target/job-service-exec.jar", "scheduler-service/target/scheduler-service-exec.jar",
                "api-gateway/target/api-gateway-exec.jar");
    }

    @Test
    void runsWhatIsBuiltInOrderAndNamesWhatIsNot() throws IOException {
        buildRequired();
        build(LocalPlatform.AGENT_JAR);
        LocalPlatform platform = platform().workers(2).build();
        try {
            assertThat(platform.components()).containsExactly("postgres", "kafka", "job-service", "scheduler-service",
                    "api-gateway", "agent-1", "agent-2");
            assertThat(platform.missing()).containsOnlyKeys("reconciler-service");
            assertThat(platform.url()).hasToString("http://localhost:10080");
            assertThat(platform.url("job-service")).hasToString("http://localhost:10081");
            assertThat(platform.managementUrl("job-service")).hasToString("http://localhost:11081");
            assertThat(platform.ports()).containsEntry("job-service", List.of(10081, 11081))
                    .containsEntry("scheduler-service", List.of(10082, 11082)).containsKey("postgres").containsKey("kafka");
            assertThat(platform.log("agent-2")).isEqualTo(home.resolve("logs/agent-2.log"));
            assertThat(platform.isRunning("job-service")).isFalse();
            assertThatThrownBy(() -> platform.kill("reconciler-service")).hasMessageContaining("not built");
        } finally {
            platform.stop();
        }
    }

    @Test
    void otherUsersOfTheMachineAJobsUidAmongThemReachTheWorkersButNotTheLogsKafkaOrScratchFiles() throws IOException {
        Files.createDirectories(home.resolve("logs"));
        // an earlier launcher's binaries, world-writable as zonky leaves them
        Path oldBinaries = Files.createDirectories(home.resolve("postgres-binaries"));
        Files.setPosixFilePermissions(oldBinaries, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(home.resolve("logs"),
                PosixFilePermissions.fromString("rwxr-xr-x"));
        buildRequired();
        LocalPlatform platform = platform().workers(0).build();
        try {
            platform.components(); // lays the home out
            assertThat(mode(home)).isEqualTo("rwx--x--x");
            for (String dir : LocalPlatform.OWNER_ONLY) {
                assertThat(mode(home.resolve(dir))).as(dir).isEqualTo("rwx------");
            }
            // PostgreSQL's binaries, which root runs, are reached through an owner-only directory only
            assertThat(LocalPlatform.OWNER_ONLY).contains(home.relativize(LocalPlatform.postgresBinaries(home))
                    .getName(0).toString());
            assertThat(mode(oldBinaries)).isEqualTo("rwx------");
        } finally {
            platform.stop();
        }
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    @Test
    void replicasOfAServiceRunSideBySideOnPortsOfTheirOwn() throws IOException {
        buildRequired();
        build("reconciler-service/target/reconciler-service-exec.jar");
        LocalPlatform platform = platform().workers(0).replicas("scheduler-service", 2).replicas("reconciler-service", 3)
                .build();
        try {
            assertThat(platform.components()).containsExactly("postgres", "kafka", "job-service", "scheduler-service",
                    "scheduler-service-2", "reconciler-service", "reconciler-service-2", "reconciler-service-3",
                    "api-gateway");
            assertThat(platform.ports()).containsEntry("scheduler-service", List.of(10082, 11082))
                    .containsEntry("scheduler-service-2", List.of(10182, 11182))
                    .containsEntry("reconciler-service-3", List.of(10283, 11283));
            assertThat(platform.url()).hasToString("http://localhost:10080");
        } finally {
            platform.stop();
        }
        assertThatThrownBy(() -> platform().replicas("api-gateway", 2)).hasMessageContaining("not 2 of api-gateway");
        assertThatThrownBy(() -> platform().replicas("job-service", 0)).hasMessageContaining("not 0 of job-service");
    }

    @Test
    void withoutTheGatewayTheUrlIsJobService() throws IOException {
        build("job-service/target/job-service-exec.jar", "scheduler-service/target/scheduler-service-exec.jar");
        LocalPlatform platform = platform().workers(0).without("api-gateway").build();
        try {
            assertThat(platform.url()).hasToString("http://localhost:10081");
        } finally {
            platform.stop();
        }
    }

    @Test
    void givenDatabaseAndBrokerAreNotRunHere() throws IOException {
        buildRequired();
        LocalPlatform platform = platform().workers(0).databaseUrl("jdbc:postgresql://db:5432/jobs").databaseUser("jobs")
                .databasePassword("secret").kafkaBootstrapServers("kafka:9092").build();
        try {
            assertThat(platform.components()).containsExactly("job-service", "scheduler-service", "api-gateway");
            assertThat(platform.databaseUrl()).isEqualTo("jdbc:postgresql://db:5432/jobs");
            assertThat(platform.kafkaBootstrapServers()).isEqualTo("kafka:9092");
            assertThatThrownBy(() -> platform.stop("postgres")).hasMessageContaining("given from outside");
        } finally {
            platform.stop();
        }
    }

    @Test
    void aRequiredServiceThatIsNotBuiltIsAnError() {
        assertThatThrownBy(() -> platform().build().components()).hasMessageContaining("job-service is not built");
    }

    @Test
    void generatedTokensAreKeptForTheNextRunAndGivenOnesWin() {
        LocalPlatform first = platform().build();
        LocalPlatform second = platform().build();
        assertThat(first.adminToken()).isEqualTo(second.adminToken()).hasSizeGreaterThan(20);
        assertThat(first.joinToken()).isEqualTo(second.joinToken()).isNotEqualTo(first.adminToken());
        assertThat(first.generatedAdminToken()).isTrue();
        LocalPlatform given = platform().adminToken("mine").build();
        assertThat(given.adminToken()).isEqualTo("mine");
        assertThat(given.generatedAdminToken()).isFalse();
    }

    @Test
    void oneLauncherPerHome() throws IOException {
        buildRequired();
        LocalPlatform first = platform().workers(0).build();
        try {
            first.components();
            assertThatThrownBy(() -> platform().workers(0).build().components()).hasMessageContaining("another launcher");
        } finally {
            first.stop();
        }
        LocalPlatform next = platform().workers(0).build();
        assertThat(next.components()).contains("job-service");
        next.stop();
    }
}
