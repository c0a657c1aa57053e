package io.fleetjobs.deploy.k8s;

import io.fleetjobs.deploy.Repo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the repository's modules say about themselves, read from their sources: the port each service
 * listens on ({@code server.port} of its application.yml), the environment variables each reads, the
 * agent's {@code jobs.worker.*} settings, the newest schema migration.
 */
final class Modules {
    /** The services that listen on a port of their own. */
    static final List<String> SERVICES = List.of("api-gateway", "job-service", "scheduler-service", "reconciler-service");

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)[:}]");
    private static final Pattern GETENV = Pattern.compile("getenv\\(\"([A-Z][A-Z0-9_]*)\"\\)");
    private static final Pattern MIGRATION = Pattern.compile("V(\\d+(?:[._]\\d+)*)__.*\\.sql");

    private Modules() {
    }

    /** server.port of the module's application.yml. */
    static int serverPort(String module) {
        Path yml = Repo.path(module + "/src/main/resources/application.yml");
        Object port = Yamls.at(Yamls.documents(read(yml)).getFirst(), "server", "port");
        if (!(port instanceof Integer p)) {
            throw new IllegalStateException(yml + " names no server.port");
        }
        return p;
    }

    /**
     * The environment variables the module reads: the placeholders of its application*.yml and of its
     * code, {@code getenv} calls, and those of service-support where the module depends on it.
     */
    static Set<String> environmentRead(String module) {
        Set<String> names = new LinkedHashSet<>();
        scan(Repo.path(module + "/src/main"), names);
        if (read(Repo.path(module + "/pom.xml")).contains("<artifactId>service-support</artifactId>")) {
            scan(Repo.path("service-support/src/main"), names);
        }
        return names;
    }

    /** The agent's settings as environment variables: JOBS_WORKER_ and each WorkerProperties component. */
    static Set<String> workerSettings() {
        String source = read(Repo.path("worker-agent/src/main/java/io/fleetjobs/agent/WorkerProperties.java"));
        Matcher header = Pattern.compile("record\\s+WorkerProperties\\s*\\(([^)]*)\\)").matcher(source);
        if (!header.find()) {
            throw new IllegalStateException("WorkerProperties is no longer a record with its components in one header");
        }
        Set<String> names = new LinkedHashSet<>();
        for (String component : header.group(1).split(",")) {
            String[] words = component.trim().split("\\s+");
            String name = words[words.length - 1];
            names.add("JOBS_WORKER_" + name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(java.util.Locale.ROOT));
        }
        return names;
    }

    /** The version of the newest Flyway migration, as Flyway writes it in flyway_schema_history. */
    static String newestMigration() {
        try (Stream<Path> files = Files.list(Repo.path("db-migrations/src/main/resources/db/migration"))) {
            return files.map(p -> MIGRATION.matcher(p.getFileName().toString()))
                    .filter(Matcher::matches)
                    .map(m -> m.group(1).replace('_', '.'))
                    .max(Comparator.comparing(Modules::versionKey, Modules::compareVersions))
                    .orElseThrow(() -> new IllegalStateException("no migrations"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean isModule(String name) {
        return Files.isRegularFile(Repo.path(name + "/pom.xml"));
    }

    static Optional<String> moduleOfImage(String image) {
        if (image == null || !image.startsWith("fleetjobs/")) {
            return Optional.empty();
        }
        String rest = image.substring("fleetjobs/".length());
        int colon = rest.indexOf(':');
        return Optional.of(colon < 0 ? rest : rest.substring(0, colon));
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void scan(Path root, Set<String> names) {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(Files::isRegularFile)
                    .filter(p -> p.toString().endsWith(".java") || p.getFileName().toString().matches("application.*\\.ya?ml"))
                    .forEach(p -> {
                        String text = read(p);
                        for (Pattern pattern : List.of(PLACEHOLDER, GETENV)) {
                            Matcher m = pattern.matcher(text);
                            while (m.find()) {
                                names.add(m.group(1));
                            }
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int[] versionKey(String version) {
        return java.util.Arrays.stream(version.split("\\.")).mapToInt(Integer::parseInt).toArray();
    }

    private static int compareVersions(int[] a, int[] b) {
        return java.util.Arrays.compare(a, b);
    }

    /** {@code management.server.port} of the module's application.yml: a number, or a placeholder's default. */
    static int managementPort(String module) {
        Path yml = Repo.path(module + "/src/main/resources/application.yml");
        Object port = Yamls.at(Yamls.documents(read(yml)).getFirst(), "management", "server", "port");
        if (port instanceof Integer p) {
            return p;
        }
        java.util.regex.Matcher placeholder = java.util.regex.Pattern.compile("\\$\\{[^:}]+:(\\d+)}")
                .matcher(String.valueOf(port));
        if (!placeholder.matches()) {
            throw new IllegalStateException(yml + " names no management.server.port");
        }
        return Integer.parseInt(placeholder.group(1));
    }

    /** Each service's management port: the actuator (prometheus, metrics, info), never its main port. */
    static Map<String, Integer> managementPorts() {
        Map<String, Integer> ports = new java.util.LinkedHashMap<>();
        SERVICES.forEach(s -> ports.put(s, managementPort(s)));
        return ports;
    }

    static Map<String, Integer> servicePorts() {
        Map<String, Integer> ports = new java.util.LinkedHashMap<>();
        SERVICES.forEach(s -> ports.put(s, serverPort(s)));
        return ports;
    }
}
