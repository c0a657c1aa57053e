package io.fleetjobs.deploy.compose;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The readers ComposeFileTest relies on: what they accept must be narrow enough for its checks to mean something. */
class ConfigReadersTest {

    @Test
    void aPlaceholderChainKeepsEveryNameAndTheInnermostDefault() {
        List<Placeholder> found = Placeholder.findAll(
                "url: ${JOBS_SCHEDULER_URL:${JOBS_SCHEDULER_SERVICE_URL:http://localhost:8082}}\nsecret: ${JOBS_X:}\n"
                        + "n: ${JOBS_DB_URL:jdbc:postgresql://db:5432/jobs} g: scheduler-${random.uuid}");

        assertThat(found).containsExactly(
                new Placeholder(List.of("JOBS_SCHEDULER_URL", "JOBS_SCHEDULER_SERVICE_URL"), "http://localhost:8082"),
                new Placeholder(List.of("JOBS_X"), ""),
                new Placeholder(List.of("JOBS_DB_URL"), "jdbc:postgresql://db:5432/jobs"),
                new Placeholder(List.of("random.uuid"), null));
        assertThat(found).extracting(Placeholder::requiredInContainer).containsExactly(true, true, false, true);
        assertThat(found.getLast().namesEnvironmentVariable()).isFalse();
    }

    @Test
    void aPropertyIsSetByItsRelaxedEnvironmentNames() {
        assertThat(Placeholder.environmentForms("jobs.worker.scheduler-url"))
                .containsExactlyInAnyOrder("JOBS_WORKER_SCHEDULERURL", "JOBS_WORKER_SCHEDULER_URL");
        assertThat(Placeholder.environmentForms("JOBS_DB_URL")).containsExactly("JOBS_DB_URL");
    }

    @Test
    void theAgentReadsItsConfigurationPropertiesAndNothingElse() {
        ModuleConfig agent = ModuleConfig.of("worker-agent");

        assertThat(agent.reads("JOBS_WORKER_SCHEDULER_URL", "")).isTrue();
        assertThat(agent.reads("JOBS_WORKER_MEMORY_MB", "")).isTrue();
        assertThat(agent.reads("JOBS_WORKER_LABELS_POOL", "")).as("a key of the labels map").isTrue();
        assertThat(agent.reads("JOBS_WORKER_MEMORY", "")).isFalse();
        assertThat(agent.reads("JOBS_DB_URL", "")).isFalse();
        assertThat(agent.reads("JOBS_INTERNAL_SECRET", "")).isFalse();
        assertThat(agent.reads("JAVA_OPTS", "exec java -jar app.jar")).as("only where the entrypoint uses it").isFalse();
        assertThat(agent.serverPort()).isNull();
        assertThat(agent.jarName()).isEqualTo("worker-agent.jar");
    }

    @Test
    void aServiceReadsItsPlaceholdersAndThoseOfTheModulesItDependsOn() {
        ModuleConfig jobService = ModuleConfig.of("job-service");
        ModuleConfig reconciler = ModuleConfig.of("reconciler-service");

        assertThat(jobService.serverPort()).isEqualTo(8081);
        assertThat(jobService.jarName()).isEqualTo("job-service-exec.jar");
        assertThat(jobService.reads("JOBS_KAFKA_BOOTSTRAP_SERVERS", "")).isTrue();
        assertThat(jobService.reads("JOBS_INTERNAL_SECRET", "")).as("through service-support").isTrue();
        assertThat(jobService.required()).contains(Set.of("JOBS_DB_URL"))
                .anySatisfy(anyOf -> assertThat(anyOf).contains("JOBS_INTERNAL_SECRET"));
        assertThat(reconciler.reads("JOBS_KAFKA_BOOTSTRAP_SERVERS", "")).isFalse();
        // service-support's identity configuration names it (this reading cannot see that the reconciler turns it off,
        // jobs.internal-identity.enabled=false: it starts without a secret, MainPortHealthTest)
        assertThat(reconciler.reads("JOBS_INTERNAL_SECRET", "")).as("through service-support").isTrue();
        assertThat(ModuleConfig.of("db-migrations").required())
                .as("the password, or a file holding it, will do")
                .containsExactlyInAnyOrder(Set.of("JOBS_DB_URL"), Set.of("JOBS_DB_USER"),
                        Set.of("JOBS_DB_PASSWORD", "JOBS_DB_PASSWORD_FILE"));
        assertThat(ModuleConfig.of("job-service").managementPort()).isEqualTo(9081);
        assertThat(ModuleConfig.of("job-service").serverPort()).isEqualTo(8081);
    }
}
