package io.fleetjobs.deploy.compose;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.deploy.Repo;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docker-compose.yml, the Dockerfiles and deploy/ (Prometheus, Grafana) against the modules' own configuration:
 * a service given a variable nobody reads, a missing required one, a wrong port, name or jar fails here rather
 * than at an operator's first {@code docker compose up}.
 */
class ComposeFileTest {
    private static final String IMAGE_TAG = ":${FLEETJOBS_VERSION:-0.1.0}";
    /** The only services reachable from the host, and their container ports. */
    private static final Map<String, Integer> PUBLISHED = Map.of("api-gateway", 8080, "grafana", 3000, "prometheus", 9090);
    /**
     * Needs that live in code rather than in application.yml: the agent's scheduler URL defaults to localhost in
     * WorkerProperties, and it refuses to start without a join token (MachineResources).
     */
    private static final Map<String, List<String>> REQUIRED_BY_CODE =
            Map.of("worker-agent", List.of("JOBS_WORKER_SCHEDULER_URL", "JOBS_WORKER_JOIN_TOKEN"));
    private static final Pattern JDBC = Pattern.compile("jdbc:postgresql://([^:/]+):(\\d+)/(\\w+)");
    /** The one-shot service that writes the secrets (deploy/compose/secrets.sh) into named volumes. */
    private static final String SECRETS = "secrets";
    /** The secrets: none may have a default value in docker-compose.yml or .env.example. */
    private static final List<String> SECRET_VARIABLES =
            List.of("JOBS_DB_PASSWORD", "JOBS_INTERNAL_SECRET", "JOBS_BOOTSTRAP_ADMIN_TOKEN", "JOBS_AGENT_JOIN_TOKEN");
    private static final String CONFIGTREE = "configtree:";

    private static Compose compose;
    private static SecretsScript secretsScript;
    private static List<String> runnable;
    private static final Map<String, ModuleConfig> modules = new LinkedHashMap<>();

    @BeforeAll
    static void read() {
        compose = Compose.read(Compose.file());
        secretsScript = SecretsScript.read();
        runnable = ModuleConfig.runnableModules();
        runnable.forEach(m -> modules.put(m, ModuleConfig.of(m)));
    }

    @Test
    void theRunnableModulesAreTheSixWithDockerfiles() {
        assertThat(runnable).containsExactlyInAnyOrder("db-migrations", "api-gateway", "job-service",
                "scheduler-service", "reconciler-service", "worker-agent");
    }

    @Test
    void everyRunnableModuleHasAServiceBuiltFromItsDockerfileUnderItsImageName() {
        for (String module : runnable) {
            assertThat(Repo.path(module + "/Dockerfile")).as("Dockerfile of %s", module).isRegularFile();
            List<String> services = compose.servicesOf(module);
            assertThat(services).as("services built from %s/Dockerfile", module).isNotEmpty();
            for (String service : services) {
                assertThat(Compose.map(compose.service(service).get("build")).get("context"))
                        .as("build context of %s (the Dockerfiles build from the repository root)", service)
                        .isEqualTo(".");
                assertThat(compose.image(service)).as("image of %s", service).isEqualTo("fleetjobs/" + module + IMAGE_TAG);
            }
        }
        for (String service : compose.serviceNames()) {
            if (compose.image(service).startsWith("fleetjobs/")) {
                assertThat(compose.module(service)).as("%s runs a fleetjobs image: it builds it", service).isPresent();
            }
        }
    }

    @Test
    void eachServiceListensAndIsCheckedOnItsModulesServerPort() {
        for (String service : moduleServices()) {
            ModuleConfig module = moduleOf(service);
            Integer port = module.serverPort();
            if (port == null) {
                assertThat(compose.containerPorts(service)).as("%s has no web server", service).isEmpty();
                continue;
            }
            Integer management = module.managementPort();
            assertThat(management).as("%s's management.server.port (the actuator but health)", service)
                    .isNotNull().isNotEqualTo(port);
            assertThat(compose.containerPorts(service))
                    .as("container ports of %s (server.port, management.server.port)", service)
                    .containsExactlyInAnyOrder(port, management);
            assertThat(compose.healthcheck(service)).as("healthcheck of %s", service)
                    .contains("http://localhost:" + port + "/actuator/health");
        }
    }

    @Test
    void servicesAreGivenOnlyVariablesTheirConfigurationReads() {
        List<String> unread = new ArrayList<>();
        for (String service : moduleServices()) {
            ModuleConfig module = moduleOf(service);
            String dockerfile = ModuleConfig.read(Repo.path(module.name + "/Dockerfile"));
            compose.environment(service).keySet().stream()
                    .filter(name -> !module.reads(name, dockerfile))
                    .forEach(name -> unread.add(service + ": " + name));
        }
        assertThat(unread).as("variables that no configuration of the service reads").isEmpty();
    }

    @Test
    void servicesAreGivenEveryVariableTheyNeed() {
        List<String> missing = new ArrayList<>();
        for (String service : moduleServices()) {
            ModuleConfig module = moduleOf(service);
            Set<String> given = givenNames(service);
            for (Set<String> anyOf : module.required()) {
                if (anyOf.stream().noneMatch(given::contains)) {
                    missing.add(service + ": one of " + anyOf);
                }
            }
            for (String name : REQUIRED_BY_CODE.getOrDefault(module.name, List.of())) {
                if (!given.contains(name)) {
                    missing.add(service + ": " + name);
                }
            }
        }
        assertThat(missing).as("required variables (no default, or one that means localhost)").isEmpty();
    }

    @Test
    void theDatabaseUrlNamesThePostgresServiceAndItsCredentials() {
        int checked = 0;
        for (String service : compose.serviceNames()) {
            Map<String, String> env = compose.environment(service);
            String url = env.get("JOBS_DB_URL");
            if (url == null) {
                continue;
            }
            Matcher jdbc = JDBC.matcher(url);
            assertThat(jdbc.matches()).as("JOBS_DB_URL of %s: %s", service, url).isTrue();
            String host = jdbc.group(1);
            assertThat(compose.serviceNames()).as("database host of %s", service).contains(host);
            assertThat(compose.image(host)).as("image of %s", host).startsWith("postgres:17");
            assertThat(Integer.parseInt(jdbc.group(2))).as("database port of %s", service).isEqualTo(5432);
            Map<String, String> postgres = compose.environment(host);
            assertThat(jdbc.group(3)).as("database of %s", service).isEqualTo(postgres.get("POSTGRES_DB"));
            assertThat(env.get("JOBS_DB_USER")).as("user of %s", service).isEqualTo(postgres.get("POSTGRES_USER"));
            assertThat(env).as("no password in the environment of %s: a file", service).doesNotContainKey("JOBS_DB_PASSWORD");
            assertThat(postgres).as("no password in postgres' environment: a file").doesNotContainKey("POSTGRES_PASSWORD");
            String passwordFile = env.containsKey("JOBS_DB_PASSWORD_FILE") ? env.get("JOBS_DB_PASSWORD_FILE")
                    : configtree(service).map(dir -> dir + "/JOBS_DB_PASSWORD").orElse(null);
            assertThat(passwordFile).as("where %s reads the database password", service).isNotNull();
            assertThat(secretFile(service, passwordFile)).as("the password file %s of %s", passwordFile, service)
                    .isPresent()
                    .isEqualTo(secretFile(host, postgres.get("POSTGRES_PASSWORD_FILE")));
            checked++;
        }
        assertThat(checked).as("services given JOBS_DB_URL").isGreaterThanOrEqualTo(5);
    }

    @Test
    void kafkaAddressesAreTheBrokersAdvertisedListener() {
        List<String> advertised = new ArrayList<>();
        for (String listener : compose.environment("kafka").getOrDefault("KAFKA_ADVERTISED_LISTENERS", "").split(",")) {
            advertised.add(listener.replaceFirst("^[A-Z_]+://", ""));
        }
        assertThat(compose.image("kafka")).startsWith("apache/kafka:4.1.");
        assertThat(compose.environment("kafka")).containsEntry("KAFKA_PROCESS_ROLES", "broker,controller");
        int checked = 0;
        for (String service : compose.serviceNames()) {
            for (var e : compose.environment(service).entrySet()) {
                if (e.getKey().endsWith("KAFKA_BOOTSTRAP_SERVERS")) {
                    assertThat(List.of(e.getValue().split(","))).as("%s of %s", e.getKey(), service)
                            .allMatch(advertised::contains);
                    checked++;
                }
            }
        }
        assertThat(checked).as("services given a Kafka address").isGreaterThanOrEqualTo(2);
        // agents report only over the agent API (issue 18): none is given the broker
        for (String agent : compose.servicesOf("worker-agent")) {
            assertThat(compose.environment(agent).keySet()).as("%s's settings", agent).noneMatch(k -> k.contains("KAFKA"));
        }
    }

    @Test
    void serviceUrlsNameComposeServicesOnTheirServerPorts() {
        int checked = 0;
        for (String service : compose.serviceNames()) {
            for (var e : compose.environment(service).entrySet()) {
                if (!e.getValue().startsWith("http://")) {
                    continue;
                }
                URI uri = URI.create(e.getValue());
                assertThat(compose.serviceNames()).as("host of %s in %s", e.getKey(), service).contains(uri.getHost());
                ModuleConfig target = moduleOf(uri.getHost());
                assertThat(uri.getPort()).as("port of %s in %s", e.getKey(), service).isEqualTo(target.serverPort());
                checked++;
            }
        }
        assertThat(checked).as("service URLs (the gateway's routes, the agents' scheduler)").isGreaterThanOrEqualTo(4);
    }

    @Test
    void theSecretsAreTheSameWhereverTheyMustAgree() {
        // every control-plane service reads the same files (one volume): the gateway signs with the secret the
        // services check, and installs the admin key job-service does
        Set<String> controlPlane = new HashSet<>();
        for (String service : moduleServices()) {
            if (compose.module(service).orElseThrow().equals("worker-agent")) {
                continue;
            }
            for (String variable : List.of("JOBS_INTERNAL_SECRET", "JOBS_BOOTSTRAP_ADMIN_TOKEN", "JOBS_AGENT_JOIN_TOKEN",
                    "JOBS_DB_PASSWORD")) {
                if (moduleOf(service).reads(variable, "")) {
                    assertThat(compose.environment(service)).as("%s: %s comes from a file", service, variable)
                            .doesNotContainKey(variable);
                    Optional<String> dir = configtree(service);
                    String file = dir.map(d -> d + "/" + variable).orElse(compose.environment(service).get(variable + "_FILE"));
                    Optional<List<String>> found = secretFile(service, file);
                    assertThat(found).as("%s reads %s from %s, a file the secrets service writes", service, variable, file)
                            .isPresent();
                    controlPlane.add(found.get().getFirst());
                    assertThat(compose.mountsReadOnly(service, found.get().getFirst())).as("%s mounts %s read-only", service,
                            found.get().getFirst()).isTrue();
                }
            }
        }
        assertThat(controlPlane).as("the control plane's secrets are in one volume").hasSize(1);
        assertThat(givenNames("job-service")).contains("JOBS_INTERNAL_SECRET", "JOBS_BOOTSTRAP_ADMIN_TOKEN");
        assertThat(givenNames("api-gateway")).contains("JOBS_INTERNAL_SECRET", "JOBS_BOOTSTRAP_ADMIN_TOKEN");
        assertThat(givenNames("scheduler-service")).contains("JOBS_INTERNAL_SECRET", "JOBS_AGENT_JOIN_TOKEN");
        // the agents' copy is the scheduler's join token (SecretsScriptTest runs the script and compares the files)
        assertThat(secretsScript.text).contains(
                "secret \"$agent\" jobs.worker.join-token \"$(cat \"$control/JOBS_AGENT_JOIN_TOKEN\")\"");
        for (String agent : compose.servicesOf("worker-agent")) {
            assertThat(givenNames(agent)).as("%s gets the join token", agent).contains("JOBS_WORKER_JOIN_TOKEN");
        }
    }

    @Test
    void agentsGetTheJoinTokenAndNoneOfTheControlPlanesSecrets() {
        String controlVolume = volumeOfFolder("FLEETJOBS_CONTROL_SECRETS");
        String agentVolume = volumeOfFolder("FLEETJOBS_AGENT_SECRETS");
        assertThat(controlVolume).isNotEqualTo(agentVolume);
        assertThat(secretsScript.files.get("FLEETJOBS_AGENT_SECRETS")).as("what the agents' volume holds")
                .containsExactly("jobs.worker.join-token");
        List<String> agents = compose.servicesOf("worker-agent");
        assertThat(agents).isNotEmpty();
        for (String agent : agents) {
            assertThat(compose.namedVolumes(agent)).as("%s's volumes", agent)
                    .doesNotContainKey(controlVolume).containsKey(agentVolume);
            assertThat(compose.mountsReadOnly(agent, agentVolume)).isTrue();
            assertThat(compose.environment(agent).keySet()).as("%s's settings", agent)
                    .noneMatch(k -> SECRET_VARIABLES.contains(k) || k.contains("SECRET") || k.contains("PASSWORD"))
                    .doesNotContain("JOBS_WORKER_JOIN_TOKEN");
            assertThat(compose.environment(agent).values()).as("%s's settings", agent)
                    .noneMatch(v -> v.contains("JOBS_INTERNAL_SECRET") || v.contains("JOBS_DB_PASSWORD"));
        }
        for (String service : compose.serviceNames()) {
            if (!agents.contains(service) && !service.equals(SECRETS)) {
                assertThat(compose.namedVolumes(service)).as("only agents mount %s", agentVolume)
                        .doesNotContainKey(agentVolume);
            }
        }
    }

    @Test
    void noSecretHasADefaultInTheComposeFileOrTheExampleSettings() {
        String file = ModuleConfig.read(Compose.file());
        for (String variable : SECRET_VARIABLES) {
            Matcher uses = Pattern.compile("\\$\\{" + variable + "(?::?-([^}]*))?}").matcher(file);
            while (uses.find()) {
                assertThat(uses.group(1)).as("the default of %s in docker-compose.yml", variable).isNullOrEmpty();
            }
        }
        assertThat(file).doesNotContain("try-out-", "change-me");
        for (String variable : SECRET_VARIABLES) {
            assertThat(compose.environment(SECRETS)).as("the secrets service is given %s when .env sets it", variable)
                    .containsEntry(variable, "${" + variable + ":-}");
        }
        List<String> settings = ModuleConfig.read(Repo.path(".env.example")).lines()
                .map(String::strip).filter(l -> !l.startsWith("#") && l.contains("=")).toList();
        assertThat(settings).as("secrets set in .env.example (they may be there, commented out, empty)")
                .noneMatch(l -> SECRET_VARIABLES.contains(l.substring(0, l.indexOf('=')).strip()));
        assertThat(settings).noneMatch(l -> l.matches("(?i)[A-Z_]*(SECRET|TOKEN)\\s*=.*"));
    }

    @Test
    void theSecretsServiceRunsTheScriptAndEveryServiceWithSecretsWaitsForIt() {
        Map<String, Object> secrets = compose.service(SECRETS);
        assertThat(compose.image(SECRETS)).as("an image compose pulls anyway").isEqualTo(compose.image("postgres"));
        assertThat(Compose.list(secrets.get("entrypoint")).stream().map(String::valueOf).toList())
                .as("the secrets service's entrypoint").hasSize(2).first().isEqualTo("/bin/sh");
        String script = String.valueOf(Compose.list(secrets.get("entrypoint")).get(1));
        assertThat(compose.repositoryPathOf(SECRETS, script)).contains(SecretsScript.PATH);
        assertThat(String.valueOf(secrets.get("restart"))).isEqualTo("no");
        assertThat(secretsScript.defaults).containsOnlyKeys("FLEETJOBS_CONTROL_SECRETS", "FLEETJOBS_AGENT_SECRETS");
        int waiting = 0;
        for (String service : compose.serviceNames()) {
            boolean holdsSecrets = compose.namedVolumes(service).keySet().stream()
                    .anyMatch(v -> v.equals(volumeOfFolder("FLEETJOBS_CONTROL_SECRETS"))
                            || v.equals(volumeOfFolder("FLEETJOBS_AGENT_SECRETS")));
            if (holdsSecrets && !service.equals(SECRETS)) {
                assertThat(compose.dependsOn(service)).as("%s waits for its secrets", service)
                        .containsEntry(SECRETS, "service_completed_successfully");
                waiting++;
            }
        }
        assertThat(waiting).as("postgres, db-migrations, four services, two agents").isGreaterThanOrEqualTo(8);
    }

    /** The folder a service's {@code SPRING_CONFIG_IMPORT=configtree:<folder>} names, if any. */
    private static Optional<String> configtree(String service) {
        String imports = compose.environment(service).get("SPRING_CONFIG_IMPORT");
        if (imports == null) {
            return Optional.empty();
        }
        assertThat(imports).as("SPRING_CONFIG_IMPORT of %s", service).startsWith(CONFIGTREE);
        return Optional.of(imports.substring(CONFIGTREE.length()).replaceAll("/+$", ""));
    }

    /** The named volume the secrets service mounts where the script's folder variable points. */
    private static String volumeOfFolder(String variable) {
        String path = compose.environment(SECRETS).get(variable);
        assertThat(path).as("%s of the secrets service", variable).isNotBlank();
        return compose.volumeAt(SECRETS, path)
                .orElseThrow(() -> new AssertionError("the secrets service mounts no volume at " + path));
    }

    /**
     * {@code [volume, name]} when the service sees at {@code file} a file the secrets script writes: a named volume
     * mounted at the file's folder, into which the script writes that name.
     */
    private static Optional<List<String>> secretFile(String service, String file) {
        if (file == null || !file.contains("/")) {
            return Optional.empty();
        }
        String dir = file.substring(0, file.lastIndexOf('/'));
        String name = file.substring(file.lastIndexOf('/') + 1);
        Optional<String> volume = compose.volumeAt(service, dir);
        if (volume.isEmpty()) {
            return Optional.empty();
        }
        for (var folder : secretsScript.files.entrySet()) {
            if (volumeOfFolder(folder.getKey()).equals(volume.get()) && folder.getValue().contains(name)) {
                return Optional.of(List.of(volume.get(), name));
            }
        }
        return Optional.empty();
    }

    /**
     * What a service is given: its environment, and the files of its configtree as the names that bind to them (a
     * file named in upper case is read by a placeholder of that exact name only; one named as a property binds
     * under every relaxed form of it, as an environment variable would).
     */
    private static Set<String> givenNames(String service) {
        Set<String> given = new HashSet<>(compose.environment(service).keySet());
        configtree(service).ifPresent(dir -> {
            String volume = compose.volumeAt(service, dir)
                    .orElseThrow(() -> new AssertionError(service + " imports " + dir + ", where no volume is mounted"));
            secretsScript.files.forEach((folder, names) -> {
                if (volumeOfFolder(folder).equals(volume)) {
                    for (String name : names) {
                        if (Placeholder.isEnvironmentName(name)) {
                            given.add(name);
                        } else {
                            given.addAll(Placeholder.environmentForms(name));
                        }
                    }
                }
            });
        });
        return given;
    }

    @Test
    void servicesStartAfterTheSchemaTheBrokerAndWhatTheyCall() {
        assertThat(compose.healthcheck("postgres")).contains("pg_isready");
        assertThat(compose.healthcheck("kafka")).isNotBlank();
        assertThat(compose.dependsOn("db-migrations")).containsEntry("postgres", "service_healthy");
        for (String service : moduleServices()) {
            ModuleConfig module = moduleOf(service);
            Map<String, String> env = compose.environment(service);
            Map<String, String> deps = compose.dependsOn(service);
            if (env.containsKey("JOBS_DB_URL") && !module.name.equals("db-migrations")) {
                assertThat(deps).as("%s waits for the schema", service)
                        .containsEntry("db-migrations", "service_completed_successfully");
                if (module.reads("JOBS_DB_MIGRATE", "")) {
                    assertThat(env).as("%s leaves migrating to db-migrations", service)
                            .containsEntry("JOBS_DB_MIGRATE", "false");
                }
            }
            if (env.containsKey("JOBS_KAFKA_BOOTSTRAP_SERVERS")) {
                assertThat(deps).as("%s waits for the broker", service).containsEntry("kafka", "service_healthy");
            }
            for (String value : env.values()) {
                if (value.startsWith("http://")) {
                    assertThat(deps).as("%s waits for %s", service, value)
                            .containsEntry(URI.create(value).getHost(), "service_healthy");
                }
            }
        }
    }

    @Test
    void twoAgentsAreDistinctMachines() {
        List<String> agents = compose.servicesOf("worker-agent");
        assertThat(agents).hasSizeGreaterThanOrEqualTo(2);
        Set<String> identities = agents.stream()
                .map(a -> compose.environment(a).get("JOBS_WORKER_MACHINE_ID")).collect(Collectors.toSet());
        assertThat(identities).doesNotContainNull().hasSameSizeAs(agents);
    }

    @Test
    void anAgentAndTheJobsItRunsShareANetworkWithTheSchedulerAloneNeverPostgresOrKafka() {
        java.util.function.Function<String, Set<String>> networks = service -> {
            Object named = compose.service(service).get("networks");
            if (named == null) {
                return Set.of("default");
            }
            return named instanceof Map<?, ?> m ? m.keySet().stream().map(String::valueOf).collect(Collectors.toSet())
                    : Compose.list(named).stream().map(String::valueOf).collect(Collectors.toSet());
        };
        List<String> agents = compose.servicesOf("worker-agent");
        assertThat(agents).isNotEmpty();
        for (String agent : agents) {
            for (String other : compose.serviceNames()) {
                if (other.equals(agent) || agents.contains(other)) {
                    continue;
                }
                boolean shared = networks.apply(other).stream().anyMatch(networks.apply(agent)::contains);
                assertThat(shared).as(agent + " and " + other).isEqualTo(other.equals("scheduler-service"));
            }
        }
        assertThat(compose.environment(agents.getFirst()).get("JOBS_WORKER_SCHEDULER_URL"))
                .startsWith("http://scheduler-service:");
    }

    @Test
    void onlyTheGatewayGrafanaAndPrometheusArePublished() {
        Map<String, List<Integer>> published = new LinkedHashMap<>();
        for (String service : compose.serviceNames()) {
            if (!compose.publishedPorts(service).isEmpty()) {
                published.put(service, compose.publishedPorts(service));
            }
        }
        Map<String, List<Integer>> expected = new LinkedHashMap<>();
        PUBLISHED.forEach((service, port) -> expected.put(service, List.of(port)));
        assertThat(published).isEqualTo(expected);
    }

    @Test
    void theJavaServicesLogAsEcsJson() {
        for (String service : moduleServices()) {
            if (moduleOf(service).isSpringBootApplication()) {
                assertThat(compose.environment(service)).as(service)
                        .containsEntry("LOGGING_STRUCTURED_FORMAT_CONSOLE", "ecs");
            }
        }
    }

    @Test
    void theDockerfilesShareOneBuildStageAndCopyTheJarsThePomsBuild() {
        String sharedBuild = null;
        for (String module : runnable) {
            ModuleConfig config = modules.get(module);
            Dockerfile dockerfile = Dockerfile.read(Repo.path(module + "/Dockerfile"));
            String build = dockerfile.preamble + "\n" + dockerfile.stage("build");
            if (sharedBuild == null) {
                sharedBuild = build;
                String maven = Dockerfile.all(dockerfile.stage("build"), "RUN").toString();
                Matcher projects = Pattern.compile("-pl (\\S+)").matcher(maven);
                assertThat(projects.find()).as("the build stage names the modules it builds: %s", maven).isTrue();
                assertThat(projects.group(1).split(",")).as("modules the build stage builds")
                        .containsExactlyInAnyOrderElementsOf(runnable);
            }
            assertThat(build).as("the build stage of %s/Dockerfile is the one every Dockerfile shares", module)
                    .isEqualTo(sharedBuild);

            List<Dockerfile.Instruction> runtime = dockerfile.finalStage();
            assertThat(dockerfile.baseImage(runtime)).as("runtime image of %s", module).startsWith("eclipse-temurin:25-jre");
            String jar = "/src/" + module + "/target/" + config.jarName();
            assertThat(Dockerfile.all(runtime, "COPY")).as("%s copies %s", module, jar)
                    .anyMatch(c -> c.arguments().startsWith("--from=build " + jar + " "));
            List<Dockerfile.Instruction> users = Dockerfile.all(runtime, "USER");
            assertThat(users).as("%s runs as a user", module).isNotEmpty();
            assertThat(users.getLast().arguments()).as("%s's user", module).doesNotStartWith("root").doesNotStartWith("0");

            Integer port = config.serverPort();
            List<String> exposed = Dockerfile.all(runtime, "EXPOSE").stream().map(Dockerfile.Instruction::arguments).toList();
            Integer management = config.managementPort();
            assertThat(exposed).as("EXPOSE of %s", module).isEqualTo(port == null ? List.of()
                    : List.of(management == null ? String.valueOf(port) : port + " " + management));
            List<Dockerfile.Instruction> health = Dockerfile.all(runtime, "HEALTHCHECK");
            if (config.hasActuator()) {
                assertThat(health).as("HEALTHCHECK of %s", module).singleElement()
                        .satisfies(h -> assertThat(h.arguments()).contains(":" + port + "/actuator/health"));
            } else {
                assertThat(health).as("%s has no actuator to check", module).isEmpty();
            }
            assertThat(dockerfile.text).as("%s sizes its heap from the container's memory", module)
                    .contains("-XX:MaxRAMPercentage=");
        }
    }

    @Test
    void theDockerignoreKeepsWhatTheBuildStageNeeds() {
        List<String> ignored = ModuleConfig.read(Repo.path(".dockerignore")).lines()
                .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        assertThat(ignored).contains("**/target/", ".git/");
        assertThat(ignored).noneMatch(l -> l.startsWith("mvnw") || l.startsWith(".mvn") || l.contains("pom.xml")
                || l.contains("src") || l.equals("*") || l.equals("**"));
        for (String module : runnable) {
            assertThat(ignored).as("the build needs %s", module).doesNotContain(module, module + "/");
        }
    }

    @Test
    void theBuildContextHoldsThePomOfEveryModuleAndNoDeploymentFile() {
        List<String> patterns = ModuleConfig.read(Repo.path(".dockerignore")).lines()
                .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        // the build stage's reactor reads every module of the root pom, those it does not build too: a module in
        // an ignored folder (deploy/tests in deploy/) needs an exception
        for (String module : ModuleConfig.modules()) {
            assertThat(dockerIgnores(patterns, module + "/pom.xml")).as("%s/pom.xml in the build context", module)
                    .isFalse();
        }
        for (String deployment : List.of("docker-compose.yml", "job-service/Dockerfile", "k8s/base/kustomization.yaml",
                "deploy/prometheus/prometheus.yml", "deploy/grafana/dashboards/fleetjobs-queue.json")) {
            assertThat(dockerIgnores(patterns, deployment)).as("%s left out of the build context", deployment).isTrue();
        }
    }

    /**
     * Whether .dockerignore's patterns leave {@code path} out of the build context, by Docker's rules (escapes
     * aside): the last pattern that matches the path or a folder above it decides, and one that starts with
     * {@code !} keeps it.
     */
    static boolean dockerIgnores(List<String> patterns, String path) {
        boolean ignored = false;
        for (String line : patterns) {
            boolean exception = line.startsWith("!");
            Pattern pattern = Pattern.compile(glob((exception ? line.substring(1) : line).strip().replaceAll("/+$", "")));
            for (String prefix = path; prefix != null;
                    prefix = prefix.contains("/") ? prefix.substring(0, prefix.lastIndexOf('/')) : null) {
                if (pattern.matcher(prefix).matches()) {
                    ignored = !exception;
                    break;
                }
            }
        }
        return ignored;
    }

    private static String glob(String pattern) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (pattern.startsWith("**/", i)) {
                regex.append("(?:.*/)?");
                i += 2;
            } else if (pattern.startsWith("**", i)) {
                regex.append(".*");
                i++;
            } else if (c == '*') {
                regex.append("[^/]*");
            } else if (c == '?') {
                regex.append("[^/]");
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return regex.toString();
    }

    @Test
    void prometheusScrapesEveryServiceOnItsActuator() {
        String config = commandFlag("prometheus", "--config.file=");
        assertThat(compose.repositoryPathOf("prometheus", config)).as("Prometheus' configuration is mounted")
                .contains("deploy/prometheus/prometheus.yml");
        Map<String, Object> prometheus = Compose.yaml(Repo.path("deploy/prometheus/prometheus.yml"));
        assertThat(Compose.list(prometheus.get("rule_files")).stream().map(String::valueOf).toList())
                .containsExactly("/etc/prometheus/alerts.yml");
        assertThat(compose.repositoryPathOf("prometheus", "/etc/prometheus/alerts.yml"))
                .as("the alert rules come from the repository").contains("deploy/prometheus/alerts.yml");

        Set<String> scraped = new HashSet<>();
        for (Object job : Compose.list(prometheus.get("scrape_configs"))) {
            Map<String, Object> scrape = Compose.map(job);
            for (Object staticConfig : Compose.list(scrape.get("static_configs"))) {
                for (Object target : Compose.list(Compose.map(staticConfig).get("targets"))) {
                    String[] hostPort = String.valueOf(target).split(":");
                    String host = hostPort[0];
                    assertThat(compose.serviceNames()).as("scrape target %s", target).contains(host);
                    ModuleConfig module = moduleOf(host);
                    assertThat(Integer.parseInt(hostPort[1])).as("port of %s: the management port", target)
                            .isEqualTo(module.managementPort());
                    assertThat(compose.containerPorts(host)).as("%s exposes %s", host, hostPort[1])
                            .contains(module.managementPort());
                    assertThat(scrape.get("metrics_path")).as("path of %s", target).isEqualTo("/actuator/prometheus");
                    assertThat(module.applicationValue("management.endpoints.web.exposure.include"))
                            .as("%s exposes /actuator/prometheus", module.name).contains("prometheus");
                    scraped.add(host);
                }
            }
        }
        Set<String> withMetrics = new HashSet<>();
        for (String service : moduleServices()) {
            if (moduleOf(service).hasActuator()) {
                withMetrics.add(service);
            }
        }
        assertThat(scraped).isEqualTo(withMetrics);
    }

    @Test
    void grafanaIsProvisionedFromMountedFiles() {
        assertThat(compose.repositoryPathOf("grafana", "/etc/grafana/provisioning"))
                .contains("deploy/grafana/provisioning");

        Map<String, Object> datasources = Compose.yaml(Repo.path("deploy/grafana/provisioning/datasources/prometheus.yml"));
        Map<String, Object> datasource = Compose.map(Compose.list(datasources.get("datasources")).getFirst());
        assertThat(datasource).containsEntry("uid", "prometheus").containsEntry("type", "prometheus");
        URI url = URI.create(String.valueOf(datasource.get("url")));
        assertThat(url.getHost()).isEqualTo("prometheus");
        assertThat(url.getPort()).isEqualTo(PUBLISHED.get("prometheus"));

        Map<String, Object> dashboards = Compose.yaml(Repo.path("deploy/grafana/provisioning/dashboards/fleetjobs.yml"));
        Map<String, Object> provider = Compose.map(Compose.list(dashboards.get("providers")).getFirst());
        assertThat(provider).containsEntry("type", "file");
        String path = String.valueOf(Compose.map(provider.get("options")).get("path"));
        assertThat(compose.repositoryPathOf("grafana", path)).as("the dashboards folder %s is mounted", path)
                .contains("deploy/grafana/dashboards");
    }

    @Test
    void everyProvisioningFileIsUnderTheMountedFolder() throws Exception {
        try (var files = Files.walk(Repo.path("deploy/grafana/provisioning"))) {
            List<String> yamls = files.filter(p -> p.toString().endsWith(".yml") || p.toString().endsWith(".yaml"))
                    .map(p -> Repo.root().relativize(p).toString()).toList();
            assertThat(yamls).hasSizeGreaterThanOrEqualTo(2)
                    .allMatch(p -> p.startsWith("deploy/grafana/provisioning/datasources/")
                            || p.startsWith("deploy/grafana/provisioning/dashboards/"));
        }
    }

    private String commandFlag(String service, String flag) {
        return Compose.list(compose.service(service).get("command")).stream().map(String::valueOf)
                .filter(a -> a.startsWith(flag)).map(a -> a.substring(flag.length())).findFirst()
                .orElseThrow(() -> new AssertionError(service + " has no " + flag));
    }

    private static List<String> moduleServices() {
        return compose.serviceNames().stream().filter(s -> compose.module(s).isPresent()).toList();
    }

    private static ModuleConfig moduleOf(String service) {
        String module = compose.module(service).orElseThrow(() -> new AssertionError(service + " is not built from a module"));
        return modules.computeIfAbsent(module, ModuleConfig::of);
    }
}
