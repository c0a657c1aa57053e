package io.fleetjobs.deploy.k8s;

import static io.fleetjobs.deploy.k8s.Rendered.describe;
import static io.fleetjobs.deploy.k8s.Rendered.name;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The checks of one overlay's rendered objects against the services' own configuration. Each check
 * adds a sentence to {@link #problems()} rather than failing at once, so that one run names every
 * mismatch, and so that a test can show a check catching a broken render.
 */
final class ManifestChecks {
    static final Set<String> DAEMON_SETS = Set.of("worker-agent", "worker-agent-gpu");
    static final String MIGRATIONS = "db-migrations";
    static final String DEV_INFRASTRUCTURE = "dev-infrastructure";
    static final String LIVENESS = "/actuator/health/liveness";
    static final String READINESS = "/actuator/health/readiness";
    static final String PROMETHEUS = "/actuator/prometheus";
    static final String WAIT_FOR_SCHEMA = "wait-for-schema";

    private static final Set<String> DB = Set.of("JOBS_DB_URL", "JOBS_DB_USER", "JOBS_DB_PASSWORD");
    /** What each program must be given to work at all (beyond what it reads with a usable default). */
    private static final Map<String, Set<String>> REQUIRED = Map.of(
            // the gateway installs the bootstrap admin key too, so that it works once the gateway is ready
            "api-gateway", union(DB, "JOBS_INTERNAL_SECRET", "JOBS_JOB_SERVICE_URL", "JOBS_SCHEDULER_URL",
                    "JOBS_BOOTSTRAP_ADMIN_TOKEN"),
            "job-service", union(DB, "JOBS_DB_MIGRATE", "JOBS_KAFKA_BOOTSTRAP_SERVERS", "JOBS_INTERNAL_SECRET",
                    "JOBS_BOOTSTRAP_ADMIN_TOKEN"),
            "scheduler-service", union(DB, "JOBS_DB_MIGRATE", "JOBS_KAFKA_BOOTSTRAP_SERVERS", "JOBS_INTERNAL_SECRET",
                    "JOBS_AGENT_JOIN_TOKEN"),
            "reconciler-service", union(DB, "JOBS_DB_MIGRATE"),
            MIGRATIONS, DB,
            "worker-agent", Set.of("JOBS_WORKER_MACHINE_ID", "JOBS_WORKER_SCHEDULER_URL", "JOBS_WORKER_REGION",
                    "JOBS_WORKER_CPU", "JOBS_WORKER_MEMORY_MB", "JOBS_WORKER_WORK_DIR"));
    /** Settings that are another service's URL, and which service. */
    private static final Map<String, String> URLS = Map.of(
            "JOBS_JOB_SERVICE_URL", "job-service",
            "JOBS_SCHEDULER_URL", "scheduler-service",
            "JOBS_WORKER_SCHEDULER_URL", "scheduler-service");

    /**
     * What an overlay promises.
     *
     * @param imageTags the overlay's {@code images:} (name to newTag)
     * @param minSchedulers the fewest scheduler replicas
     * @param serviceMonitor whether it renders the ServiceMonitor
     * @param externalSecrets Secrets created out of band (name to keys); a reference to anything else
     *                        must resolve in the render
     */
    record Expectations(Map<String, String> imageTags, int minSchedulers, boolean serviceMonitor,
                        Map<String, Set<String>> externalSecrets) {
    }

    private final Rendered rendered;
    private final Expectations expected;
    private final Map<String, Integer> ports;
    private final Map<String, Integer> managementPorts = Modules.managementPorts();
    private final List<String> problems = new ArrayList<>();

    ManifestChecks(Rendered rendered, Expectations expected, Map<String, Integer> servicePorts) {
        this.rendered = rendered;
        this.expected = expected;
        this.ports = servicePorts;
    }

    List<String> problems() {
        problems.clear();
        presence();
        schedulers();
        for (Map<String, Object> workload : rendered.workloads()) {
            workload(workload);
        }
        services();
        disruptionBudgets();
        agents();
        gpuAgents();
        serviceMonitors();
        ingresses();
        secrets();
        return List.copyOf(problems);
    }

    private void problem(String sentence) {
        problems.add(sentence);
    }

    private void presence() {
        for (String service : Modules.SERVICES) {
            require("Deployment", service);
            require("Service", service);
            require("PodDisruptionBudget", service);
        }
        DAEMON_SETS.forEach(d -> require("DaemonSet", d));
        require("Job", MIGRATIONS);
        if (expected.serviceMonitor() && rendered.ofKind("ServiceMonitor").isEmpty()) {
            problem("no ServiceMonitor rendered");
        }
    }

    private void require(String kind, String name) {
        if (rendered.find(kind, name).isEmpty()) {
            problem("missing " + kind + "/" + name);
        }
    }

    private void schedulers() {
        rendered.find("Deployment", "scheduler-service").ifPresent(d -> {
            Object replicas = Yamls.at(d, "spec", "replicas");
            int n = replicas instanceof Integer i ? i : 1;
            if (n < expected.minSchedulers()) {
                problem("Deployment/scheduler-service has " + n + " replicas, fewer than " + expected.minSchedulers());
            }
            Map<String, Object> pod = podSpec(d);
            boolean spread = Yamls.maps(pod, "topologySpreadConstraints").stream()
                    .anyMatch(c -> "kubernetes.io/hostname".equals(c.get("topologyKey")));
            boolean antiAffinity = Yamls.asList(Yamls.at(pod, "affinity", "podAntiAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution")).size()
                    + Yamls.asList(Yamls.at(pod, "affinity", "podAntiAffinity",
                    "preferredDuringSchedulingIgnoredDuringExecution")).size() > 0;
            if (!spread && !antiAffinity) {
                problem("Deployment/scheduler-service does not spread its replicas over nodes");
            }
        });
    }

    private static Map<String, Object> podSpec(Map<String, Object> workload) {
        return Yamls.map(workload, "spec", "template", "spec");
    }

    private static Map<String, String> podLabels(Map<String, Object> workload) {
        return Yamls.strings(workload, "spec", "template", "metadata", "labels");
    }

    private static boolean devInfrastructure(Map<String, Object> workload) {
        return DEV_INFRASTRUCTURE.equals(podLabels(workload).get("app.kubernetes.io/component"));
    }

    private void workload(Map<String, Object> workload) {
        String where = describe(workload);
        Map<String, Object> pod = podSpec(workload);
        boolean infra = devInfrastructure(workload);
        if (!infra && !Boolean.FALSE.equals(pod.get("automountServiceAccountToken"))) {
            problem(where + " mounts a service account token it does not need");
        }
        List<Map<String, Object>> all = new ArrayList<>(Yamls.maps(pod, "initContainers"));
        all.addAll(Yamls.maps(pod, "containers"));
        for (Map<String, Object> container : all) {
            String at = where + " container " + container.get("name");
            resources(at, container);
            security(at, pod, container, infra);
            references(at, container);
        }
        volumes(where, pod);
        for (Map<String, Object> container : Yamls.maps(pod, "containers")) {
            Optional<String> module = Modules.moduleOfImage(Yamls.string(container, "image"));
            if (module.isPresent()) {
                program(where, workload, pod, container, module.get());
            }
        }
    }

    private void resources(String at, Map<String, Object> container) {
        for (String side : List.of("requests", "limits")) {
            for (String resource : List.of("cpu", "memory")) {
                if (Yamls.at(container, "resources", side, resource) == null) {
                    problem(at + " has no " + side + "." + resource);
                }
            }
        }
    }

    private void security(String at, Map<String, Object> pod, Map<String, Object> container, boolean infra) {
        Map<String, Object> podContext = Yamls.map(pod, "securityContext");
        Map<String, Object> context = Yamls.map(container, "securityContext");
        if (!Boolean.TRUE.equals(context.getOrDefault("runAsNonRoot", podContext.get("runAsNonRoot")))) {
            problem(at + " may run as root (runAsNonRoot is not true)");
        }
        if (!Boolean.FALSE.equals(context.get("allowPrivilegeEscalation"))) {
            problem(at + " allows privilege escalation");
        }
        if (!Yamls.asList(Yamls.at(context, "capabilities", "drop")).contains("ALL")) {
            problem(at + " does not drop ALL capabilities");
        }
        Object seccomp = Optional.ofNullable(Yamls.at(context, "seccompProfile", "type"))
                .orElse(Yamls.at(podContext, "seccompProfile", "type"));
        if (!"RuntimeDefault".equals(seccomp)) {
            problem(at + " has no RuntimeDefault seccomp profile");
        }
        if (infra) {
            return; // third-party images of the dev overlay may need a writable root
        }
        if (!Boolean.TRUE.equals(context.get("readOnlyRootFilesystem"))) {
            problem(at + " has a writable root file system");
        } else if (Modules.moduleOfImage(Yamls.string(container, "image")).isPresent()
                && Yamls.maps(container, "volumeMounts").stream().noneMatch(m -> "/tmp".equals(m.get("mountPath")))) {
            problem(at + " has a read-only root and no writable /tmp");
        }
    }

    /** Every ConfigMap or Secret key an environment variable takes must exist (or be a documented external Secret). */
    private void references(String at, Map<String, Object> container) {
        for (Map<String, Object> env : Yamls.maps(container, "env")) {
            Map<String, Object> from = Yamls.map(env, "valueFrom");
            for (String kind : List.of("ConfigMap", "Secret")) {
                Map<String, Object> ref = Yamls.map(from, kind.equals("Secret") ? "secretKeyRef" : "configMapKeyRef");
                if (!ref.isEmpty()) {
                    reference(at + " env " + env.get("name"), kind, Yamls.string(ref, "name"), Yamls.string(ref, "key"));
                }
            }
        }
        for (Map<String, Object> source : Yamls.maps(container, "envFrom")) {
            Optional.ofNullable(Yamls.string(source, "configMapRef", "name"))
                    .ifPresent(n -> reference(at + " envFrom", "ConfigMap", n, null));
            Optional.ofNullable(Yamls.string(source, "secretRef", "name"))
                    .ifPresent(n -> reference(at + " envFrom", "Secret", n, null));
        }
    }

    private void volumes(String where, Map<String, Object> pod) {
        for (Map<String, Object> volume : Yamls.maps(pod, "volumes")) {
            String at = where + " volume " + volume.get("name");
            String secret = Yamls.string(volume, "secret", "secretName");
            String configMap = Yamls.string(volume, "configMap", "name");
            String kind = secret != null ? "Secret" : configMap != null ? "ConfigMap" : null;
            if (kind == null) {
                continue;
            }
            String name = secret != null ? secret : configMap;
            List<Map<String, Object>> items = Yamls.maps(volume, kind.equals("Secret") ? "secret" : "configMap", "items");
            if (items.isEmpty()) {
                reference(at, kind, name, null);
            }
            items.forEach(item -> reference(at, kind, name, Yamls.string(item, "key")));
        }
    }

    private void reference(String at, String kind, String name, String key) {
        Optional<Map<String, String>> keys = rendered.keys(kind, name);
        if (keys.isPresent()) {
            if (key != null && !keys.get().containsKey(key)) {
                problem(at + " takes key " + key + " of " + kind + "/" + name + ", which has only " + keys.get().keySet());
            }
            return;
        }
        Set<String> external = "Secret".equals(kind) ? expected.externalSecrets().get(name) : null;
        if (external == null) {
            problem(at + " takes " + kind + "/" + name + ", which is neither rendered nor documented as external");
        } else if (key != null && !external.contains(key)) {
            problem(at + " takes key " + key + " of the external Secret " + name + ", documented with only " + external);
        }
    }

    /** A container running one of the repository's programs: its image, port, probes and settings. */
    private void program(String where, Map<String, Object> workload, Map<String, Object> pod,
                         Map<String, Object> container, String module) {
        String at = where + " container " + container.get("name");
        String image = Yamls.string(container, "image");
        if (!Modules.isModule(module)) {
            problem(at + " runs image " + image + ", but there is no module " + module);
        }
        String tag = image.contains(":") ? image.substring(image.indexOf(':') + 1) : null;
        String wanted = expected.imageTags().get("fleetjobs/" + module);
        if (wanted == null || !wanted.equals(tag)) {
            problem(at + " runs " + image + ", not the overlay's tag " + wanted);
        }
        Map<String, Map<String, Object>> env = new java.util.LinkedHashMap<>();
        Yamls.maps(container, "env").forEach(e -> env.put(Yamls.string(e, "name"), e));
        settings(at, module, env, pod);
        if (ports.containsKey(module)) {
            service(at, pod, container, module, env);
        }
        if (!"Job".equals(workload.get("kind")) && !module.equals("worker-agent")
                && !ports.containsKey(module)) {
            problem(at + " runs " + module + ", which is neither a service nor the agent");
        }
    }

    private void settings(String at, String module, Map<String, Map<String, Object>> env, Map<String, Object> pod) {
        boolean agent = module.equals("worker-agent");
        Set<String> known = new HashSet<>(Modules.environmentRead(module));
        known.addAll(Set.of("LOGGING_STRUCTURED_FORMAT_CONSOLE", "JAVA_TOOL_OPTIONS"));
        if (agent) {
            known.addAll(Modules.workerSettings());
            known.addAll(Set.of("HOME", "NVIDIA_DRIVER_CAPABILITIES", "NVIDIA_VISIBLE_DEVICES"));
        }
        for (String name : env.keySet()) {
            boolean spring = name.startsWith("SPRING_") && !module.equals(MIGRATIONS);
            if (!known.contains(name) && !spring && !(agent && name.startsWith("JOBS_WORKER_LABELS_"))) {
                problem(at + " sets " + name + ", which " + module + " does not read");
            }
        }
        if (!module.equals(MIGRATIONS) && !env.containsKey("LOGGING_STRUCTURED_FORMAT_CONSOLE")) {
            problem(at + " does not set LOGGING_STRUCTURED_FORMAT_CONSOLE (structured logs)");
        }
        for (String name : REQUIRED.getOrDefault(module, Set.of())) {
            if (!env.containsKey(name)) {
                problem(at + " does not set " + name);
            }
        }
        if (env.containsKey("JOBS_DB_MIGRATE")) {
            String migrate = value(env.get("JOBS_DB_MIGRATE")).orElse(null);
            if (!"false".equals(migrate)) {
                problem(at + " migrates the schema itself (JOBS_DB_MIGRATE=" + migrate + "); the db-migrations Job does");
            }
        }
        if (ports.containsKey(module) && Yamls.maps(pod, "initContainers").stream()
                .noneMatch(c -> WAIT_FOR_SCHEMA.equals(c.get("name")))) {
            problem(at + ": its pod does not wait for the schema (no " + WAIT_FOR_SCHEMA + " init container)");
        }
        if (agent) {
            agentSettings(at, env, pod);
        }
        URLS.forEach((name, target) -> {
            if (env.containsKey(name)) {
                url(at + " " + name, value(env.get(name)).orElse(null), target);
            }
        });
    }

    private void agentSettings(String at, Map<String, Map<String, Object>> env, Map<String, Object> pod) {
        if (!"spec.nodeName".equals(Yamls.string(env.get("JOBS_WORKER_MACHINE_ID"), "valueFrom", "fieldRef", "fieldPath"))) {
            problem(at + " does not take its machine id from the node's name");
        }
        for (String name : List.of("JOBS_WORKER_CPU", "JOBS_WORKER_MEMORY_MB")) {
            String resource = Yamls.string(env.get(name), "valueFrom", "resourceFieldRef", "resource");
            if (resource == null || !resource.startsWith("limits.")) {
                problem(at + " " + name + " is not its container's limit");
            }
        }
        // jobs inherit the agent's environment: nothing secret in it, no JVM options a Java job would pick up
        for (String name : List.of("JOBS_WORKER_JOIN_TOKEN", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")) {
            if (env.containsKey(name)) {
                problem(at + " sets " + name + ", which every job it runs inherits");
            }
        }
        if (!joinTokenFile(env, pod)) {
            problem(at + " has no join token (jobs.worker.join-token from a Secret in an imported config tree)");
        }
    }

    /** The join token as a file: SPRING_CONFIG_IMPORT names a config tree where a Secret puts jobs.worker.join-token. */
    private boolean joinTokenFile(Map<String, Map<String, Object>> env, Map<String, Object> pod) {
        String imports = value(env.get("SPRING_CONFIG_IMPORT")).orElse("");
        for (String entry : imports.split(",")) {
            String trimmed = entry.trim().replaceFirst("^optional:", "");
            if (!trimmed.startsWith("configtree:")) {
                continue;
            }
            String dir = trimmed.substring("configtree:".length()).replaceAll("/+$", "");
            for (Map<String, Object> container : Yamls.maps(pod, "containers")) {
                for (Map<String, Object> mount : Yamls.maps(container, "volumeMounts")) {
                    if (!dir.equals(Yamls.string(mount, "mountPath").replaceAll("/+$", ""))) {
                        continue;
                    }
                    for (Map<String, Object> volume : Yamls.maps(pod, "volumes")) {
                        if (!Objects.equals(volume.get("name"), mount.get("name"))) {
                            continue;
                        }
                        String secret = Yamls.string(volume, "secret", "secretName");
                        if (secret == null) {
                            continue;
                        }
                        Set<String> keys = rendered.keys("Secret", secret).map(Map::keySet)
                                .orElse(expected.externalSecrets().getOrDefault(secret, Set.of()));
                        if (keys.contains("jobs.worker.join-token")) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    /** The value an environment variable will have, where the render tells (a literal or a rendered key). */
    private Optional<String> value(Map<String, Object> env) {
        if (env == null) {
            return Optional.empty();
        }
        if (env.containsKey("value")) {
            return Optional.ofNullable(Yamls.string(env, "value"));
        }
        Map<String, Object> cm = Yamls.map(env, "valueFrom", "configMapKeyRef");
        if (!cm.isEmpty()) {
            return rendered.keys("ConfigMap", Yamls.string(cm, "name")).map(k -> k.get(Yamls.string(cm, "key")));
        }
        Map<String, Object> secret = Yamls.map(env, "valueFrom", "secretKeyRef");
        if (!secret.isEmpty()) {
            return rendered.keys("Secret", Yamls.string(secret, "name")).map(k -> k.get(Yamls.string(secret, "key")));
        }
        return Optional.empty();
    }

    /** A URL setting names a rendered Service, on its port, that selects the intended service's pods. */
    private void url(String at, String value, String target) {
        if (value == null) {
            problem(at + " has no value in the render");
            return;
        }
        URI uri = URI.create(value);
        String host = uri.getHost() == null ? "" : uri.getHost().split("\\.")[0];
        Optional<Map<String, Object>> service = rendered.find("Service", host);
        if (service.isEmpty()) {
            problem(at + " is " + value + ": no Service " + host);
            return;
        }
        boolean port = Yamls.maps(service.get(), "spec", "ports").stream()
                .anyMatch(p -> Objects.equals(p.get("port"), uri.getPort()));
        if (!port) {
            problem(at + " is " + value + ": Service " + host + " has no port " + uri.getPort());
        }
        Map<String, String> selector = Yamls.strings(service.get(), "spec", "selector");
        boolean selects = rendered.find("Deployment", target).map(d -> matches(selector, podLabels(d))).orElse(false);
        if (!selects) {
            problem(at + " is " + value + ": Service " + host + " does not select " + target + "'s pods");
        }
    }

    private void service(String at, Map<String, Object> pod, Map<String, Object> container, String module,
                         Map<String, Map<String, Object>> env) {
        int port = ports.get(module);
        List<Map<String, Object>> containerPorts = Yamls.maps(container, "ports");
        if (containerPorts.stream().noneMatch(p -> Objects.equals(p.get("containerPort"), port))) {
            problem(at + " does not expose " + module + "'s server.port " + port + " (ports " + containerPorts + ")");
        }
        int management = managementPorts.get(module);
        if (containerPorts.stream().noneMatch(p -> Objects.equals(p.get("containerPort"), management))) {
            problem(at + " does not expose " + module + "'s management.server.port " + management + " (ports "
                    + containerPorts + ")");
        }
        probe(at, container, "startupProbe", LIVENESS, port);
        probe(at, container, "livenessProbe", LIVENESS, port);
        probe(at, container, "readinessProbe", READINESS, port);
    }

    private void probe(String at, Map<String, Object> container, String probe, String path, int port) {
        Map<String, Object> get = Yamls.map(container, probe, "httpGet");
        if (get.isEmpty()) {
            problem(at + " has no " + probe + " on " + path);
            return;
        }
        if (!path.equals(get.get("path"))) {
            problem(at + " " + probe + " is on " + get.get("path") + ", not " + path);
        }
        Integer resolved = containerPort(container, get.get("port"));
        if (resolved == null || resolved != port) {
            problem(at + " " + probe + " is on port " + get.get("port") + ", not " + port);
        }
    }

    /** The container port a Service's target names in the selected workloads' containers. */
    private static Integer servedPort(List<Map<String, Object>> workloads, Object target) {
        return workloads.stream().flatMap(w -> Yamls.maps(podSpec(w), "containers").stream())
                .map(c -> containerPort(c, target)).filter(Objects::nonNull).findFirst().orElse(null);
    }

    /** A port as a number, a named port resolved against the container's ports. */
    private static Integer containerPort(Map<String, Object> container, Object port) {
        if (port instanceof Integer i) {
            return i;
        }
        return Yamls.maps(container, "ports").stream()
                .filter(p -> Objects.equals(p.get("name"), port))
                .map(p -> p.get("containerPort"))
                .filter(Integer.class::isInstance).map(Integer.class::cast)
                .findFirst().orElse(null);
    }

    private static boolean matches(Map<String, String> selector, Map<String, String> labels) {
        return !selector.isEmpty() && labels.entrySet().containsAll(selector.entrySet());
    }

    private void services() {
        for (Map<String, Object> service : rendered.ofKind("Service")) {
            String at = describe(service);
            Map<String, String> selector = Yamls.strings(service, "spec", "selector");
            List<Map<String, Object>> selected = rendered.workloads().stream()
                    .filter(w -> matches(selector, podLabels(w))).toList();
            if (selected.isEmpty()) {
                problem(at + " selects no pods (selector " + selector + ")");
                continue;
            }
            if (selected.size() > 1) {
                problem(at + " selects the pods of " + selected.stream().map(Rendered::describe).toList());
            }
            for (Map<String, Object> port : Yamls.maps(service, "spec", "ports")) {
                Object target = Optional.ofNullable(port.get("targetPort")).orElse(port.get("port"));
                boolean served = selected.stream().flatMap(w -> Yamls.maps(podSpec(w), "containers").stream())
                        .map(c -> containerPort(c, target)).anyMatch(Objects::nonNull);
                if (!served) {
                    problem(at + " port " + port.get("name") + " targets " + target + ", which no selected container exposes");
                }
                Integer serverPort = ports.get(name(service));
                Integer managementPort = managementPorts.get(name(service));
                if (serverPort != null && !Objects.equals(port.get("port"), serverPort)
                        && !Objects.equals(port.get("port"), managementPort)) {
                    problem(at + " listens on " + port.get("port") + ", not " + name(service) + "'s server.port " + serverPort
                            + " or management.server.port " + managementPort);
                }
                if (managementPort != null && Objects.equals(port.get("port"), managementPort)
                        && !Objects.equals(servedPort(selected, target), managementPort)) {
                    problem(at + " port " + port.get("name") + " does not target the management port " + managementPort);
                }
            }
            if (ports.containsKey(name(service)) && selected.stream().noneMatch(w -> name(service).equals(name(w)))) {
                problem(at + " does not select Deployment/" + name(service));
            }
            if (ports.containsKey(name(service)) && !"ClusterIP".equals(
                    Optional.ofNullable(Yamls.string(service, "spec", "type")).orElse("ClusterIP"))) {
                problem(at + " is exposed as " + Yamls.string(service, "spec", "type") + "; only an Ingress exposes the gateway");
            }
        }
    }

    private void disruptionBudgets() {
        for (Map<String, Object> budget : rendered.ofKind("PodDisruptionBudget")) {
            Map<String, String> selector = Yamls.strings(budget, "spec", "selector", "matchLabels");
            if (rendered.workloads().stream().noneMatch(w -> matches(selector, podLabels(w)))) {
                problem(describe(budget) + " selects no pods");
            }
        }
    }

    private void agents() {
        for (String name : DAEMON_SETS) {
            rendered.find("DaemonSet", name).ifPresent(ds -> {
                String at = describe(ds);
                Map<String, Object> pod = podSpec(ds);
                if (Yamls.strings(pod, "nodeSelector").isEmpty()) {
                    problem(at + " runs on every node (no nodeSelector)");
                }
                Map<String, Object> container = Yamls.maps(pod, "containers").getFirst();
                Map<String, Map<String, Object>> env = new java.util.LinkedHashMap<>();
                Yamls.maps(container, "env").forEach(e -> env.put(Yamls.string(e, "name"), e));
                Duration grace = value(env.get("JOBS_WORKER_KILL_GRACE")).map(ManifestChecks::duration)
                        .orElse(Duration.ofSeconds(10));
                Object period = pod.get("terminationGracePeriodSeconds");
                long seconds = period instanceof Integer i ? i : 30;
                if (seconds < grace.toSeconds() + 10) {
                    problem(at + " gives " + seconds + " s to stop, too little for the kill grace " + grace + " and the agent's own stop");
                }
                String workDir = value(env.get("JOBS_WORKER_WORK_DIR")).orElse(null);
                Optional<Map<String, Object>> mount = Yamls.maps(container, "volumeMounts").stream()
                        .filter(m -> Objects.equals(m.get("mountPath"), workDir)).findFirst();
                boolean writable = mount.isPresent() && !Boolean.TRUE.equals(mount.get().get("readOnly"))
                        && Yamls.maps(pod, "volumes").stream().anyMatch(v -> Objects.equals(v.get("name"), mount.get().get("name"))
                        && (v.containsKey("emptyDir") || v.containsKey("hostPath")));
                if (!writable) {
                    problem(at + " has no writable volume at its work dir " + workDir);
                }
            });
        }
        Optional<Map<String, Object>> cpu = rendered.find("DaemonSet", "worker-agent");
        Optional<Map<String, Object>> gpu = rendered.find("DaemonSet", "worker-agent-gpu");
        if (cpu.isPresent() && gpu.isPresent()) {
            Map<String, String> a = Yamls.strings(podSpec(cpu.get()), "nodeSelector");
            Map<String, String> b = Yamls.strings(podSpec(gpu.get()), "nodeSelector");
            boolean exclusive = a.keySet().stream().anyMatch(k -> b.containsKey(k) && !a.get(k).equals(b.get(k)));
            if (!exclusive) {
                problem("the CPU and GPU agents may land on one node (nodeSelectors " + a + " and " + b
                        + "): two agents with the node's name as machine id");
            }
        }
    }

    private void gpuAgents() {
        rendered.find("DaemonSet", "worker-agent-gpu").ifPresent(ds -> {
            String at = describe(ds);
            Map<String, Object> pod = podSpec(ds);
            Map<String, Object> container = Yamls.maps(pod, "containers").getFirst();
            Object gpus = Yamls.at(container, "resources", "limits", "nvidia.com/gpu");
            if (gpus == null || Integer.parseInt(String.valueOf(gpus)) < 1) {
                problem(at + " does not ask for nvidia.com/gpu");
            }
            if (Yamls.maps(pod, "tolerations").stream().noneMatch(t -> "nvidia.com/gpu".equals(t.get("key")))) {
                problem(at + " does not tolerate the nvidia.com/gpu taint");
            }
            boolean runtime = "nvidia".equals(pod.get("runtimeClassName"));
            boolean utility = Yamls.maps(container, "env").stream()
                    .anyMatch(e -> "NVIDIA_DRIVER_CAPABILITIES".equals(e.get("name"))
                            && String.valueOf(e.get("value")).matches(".*\\b(utility|all)\\b.*"));
            if (!runtime && !utility) {
                problem(at + " may not see nvidia-smi (no runtimeClassName nvidia, no NVIDIA_DRIVER_CAPABILITIES with utility)");
            }
        });
    }

    private void serviceMonitors() {
        for (Map<String, Object> monitor : rendered.ofKind("ServiceMonitor")) {
            String at = describe(monitor);
            if (!"monitoring.coreos.com/v1".equals(monitor.get("apiVersion"))) {
                problem(at + " is " + monitor.get("apiVersion") + ", not monitoring.coreos.com/v1");
            }
            Map<String, String> selector = Yamls.strings(monitor, "spec", "selector", "matchLabels");
            for (String service : Modules.SERVICES) {
                rendered.find("Service", service).ifPresent(s -> {
                    if (!matches(selector, Yamls.strings(s, "metadata", "labels"))) {
                        problem(at + " does not select Service/" + service);
                    }
                    for (Map<String, Object> endpoint : Yamls.maps(monitor, "spec", "endpoints")) {
                        Optional<Map<String, Object>> port = Yamls.maps(s, "spec", "ports").stream()
                                .filter(p -> Objects.equals(p.get("name"), endpoint.get("port"))).findFirst();
                        if (port.isEmpty()) {
                            problem(at + " scrapes port " + endpoint.get("port") + ", which Service/" + service + " lacks");
                        } else if (!Objects.equals(port.get().get("port"), managementPorts.get(service))) {
                            problem(at + " scrapes Service/" + service + " on " + port.get().get("port") + ", not its management"
                                    + " port " + managementPorts.get(service) + " (the only one serving " + PROMETHEUS + ")");
                        }
                    }
                });
            }
            if (Yamls.maps(monitor, "spec", "endpoints").stream().noneMatch(e -> PROMETHEUS.equals(e.get("path")))) {
                problem(at + " does not scrape " + PROMETHEUS);
            }
        }
    }

    private void ingresses() {
        for (Map<String, Object> ingress : rendered.ofKind("Ingress")) {
            String at = describe(ingress);
            for (Map<String, Object> rule : Yamls.maps(ingress, "spec", "rules")) {
                for (Map<String, Object> path : Yamls.maps(rule, "http", "paths")) {
                    String service = Yamls.string(path, "backend", "service", "name");
                    if (!"api-gateway".equals(service)) {
                        problem(at + " exposes " + service + "; only the gateway is public");
                    }
                    Object port = Optional.ofNullable(Yamls.at(path, "backend", "service", "port", "name"))
                            .orElse(Yamls.at(path, "backend", "service", "port", "number"));
                    boolean exists = rendered.find("Service", String.valueOf(service)).stream()
                            .flatMap(s -> Yamls.maps(s, "spec", "ports").stream())
                            .anyMatch(p -> Objects.equals(p.get("name"), port) || Objects.equals(p.get("port"), port));
                    if (!exists) {
                        problem(at + " routes to " + service + ":" + port + ", which is not a rendered Service port");
                    }
                }
            }
            for (Map<String, Object> tls : Yamls.maps(ingress, "spec", "tls")) {
                reference(at + " tls", "Secret", Yamls.string(tls, "secretName"), null);
            }
        }
    }

    private void secrets() {
        for (Map<String, Object> secret : rendered.ofKind("Secret")) {
            if (expected.externalSecrets().containsKey(name(secret))) {
                problem(describe(secret) + " is rendered, but is documented as created out of band");
            }
        }
        Optional<String> control = rendered.keys("Secret", secretNamed("JOBS_AGENT_JOIN_TOKEN"))
                .map(k -> k.get("JOBS_AGENT_JOIN_TOKEN"));
        Optional<String> agent = rendered.keys("Secret", secretNamed("jobs.worker.join-token"))
                .map(k -> k.get("jobs.worker.join-token"));
        if (control.isPresent() && agent.isPresent() && !control.equals(agent)) {
            problem("the agents' join token differs from the scheduler's JOBS_AGENT_JOIN_TOKEN");
        }
    }

    /** The rendered Secret holding a key, by the key's name; "" when none. */
    private String secretNamed(String key) {
        return rendered.ofKind("Secret").stream()
                .filter(s -> rendered.keys("Secret", name(s)).map(k -> k.containsKey(key)).orElse(false))
                .map(Rendered::name).findFirst().orElse("");
    }

    static Duration duration(String text) {
        var m = java.util.regex.Pattern.compile("(\\d+)(ms|s|m|h)").matcher(text.trim());
        if (!m.matches()) {
            return Duration.parse(text.trim());
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }

    private static Set<String> union(Set<String> base, String... more) {
        Set<String> all = new LinkedHashSet<>(base);
        all.addAll(List.of(more));
        return Set.copyOf(all);
    }
}
