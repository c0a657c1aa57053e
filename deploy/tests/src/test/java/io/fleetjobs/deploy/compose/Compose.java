package io.fleetjobs.deploy.compose;

import io.fleetjobs.deploy.Repo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** docker-compose.yml as the tests read it: YAML anchors and merge keys resolved, nothing interpolated. */
final class Compose {
    private final Map<String, Object> services;

    private Compose(Map<String, Object> file) {
        this.services = map(file.get("services"));
    }

    static Compose read(Path file) {
        return new Compose(yaml(file));
    }

    static Map<String, Object> yaml(Path file) {
        Object loaded = new Yaml(new SafeConstructor(new LoaderOptions())).load(ModuleConfig.read(file));
        return map(loaded);
    }

    List<String> serviceNames() {
        return List.copyOf(services.keySet());
    }

    Map<String, Object> service(String name) {
        return map(services.get(name));
    }

    /** The module whose Dockerfile builds the service's image, if any. */
    Optional<String> module(String service) {
        Map<String, Object> build = map(service(service).get("build"));
        Object dockerfile = build.get("dockerfile");
        if (dockerfile == null) {
            return Optional.empty();
        }
        Path path = Path.of(String.valueOf(dockerfile));
        return path.getNameCount() == 2 && path.getFileName().toString().equals("Dockerfile")
                ? Optional.of(path.getName(0).toString()) : Optional.empty();
    }

    List<String> servicesOf(String module) {
        return serviceNames().stream().filter(s -> module(s).filter(module::equals).isPresent()).toList();
    }

    /** The environment, as strings; the list form ({@code - NAME=value}) too. */
    Map<String, String> environment(String service) {
        Object env = service(service).get("environment");
        Map<String, String> out = new LinkedHashMap<>();
        if (env instanceof Map<?, ?> m) {
            m.forEach((k, v) -> out.put(String.valueOf(k), v == null ? "" : String.valueOf(v)));
        } else if (env instanceof List<?> list) {
            for (Object item : list) {
                String[] kv = String.valueOf(item).split("=", 2);
                out.put(kv[0], kv.length > 1 ? kv[1] : "");
            }
        }
        return out;
    }

    /** depends_on as service → condition ({@code service_started} for the short form). */
    Map<String, String> dependsOn(String service) {
        Object deps = service(service).get("depends_on");
        Map<String, String> out = new LinkedHashMap<>();
        if (deps instanceof List<?> list) {
            list.forEach(d -> out.put(String.valueOf(d), "service_started"));
        } else if (deps instanceof Map<?, ?> m) {
            m.forEach((k, v) -> out.put(String.valueOf(k),
                    String.valueOf(map(v).getOrDefault("condition", "service_started"))));
        }
        return out;
    }

    /** The healthcheck's test as one string ({@code ""} when there is none). */
    String healthcheck(String service) {
        Object test = map(service(service).get("healthcheck")).get("test");
        if (test instanceof List<?> list) {
            return String.join(" ", list.stream().map(String::valueOf).toList());
        }
        return test == null ? "" : String.valueOf(test);
    }

    /** Container ports named by {@code ports} (the target) and {@code expose}. */
    List<Integer> containerPorts(String service) {
        List<Integer> ports = new ArrayList<>(publishedPorts(service));
        for (Object e : list(service(service).get("expose"))) {
            ports.add(Integer.valueOf(String.valueOf(e).split("/")[0]));
        }
        return ports;
    }

    /** The container side of each {@code ports} entry ({@code [ip:]host:container}). */
    List<Integer> publishedPorts(String service) {
        List<Integer> ports = new ArrayList<>();
        for (Object p : list(service(service).get("ports"))) {
            String spec = String.valueOf(p).replaceAll("\\$\\{[^}]*}", "HOST");
            String[] parts = spec.split(":");
            ports.add(Integer.valueOf(parts[parts.length - 1].split("/")[0]));
        }
        return ports;
    }

    /**
     * The repository path that a container path of the service comes from through a bind mount of the repository
     * ({@code ./deploy/x:/etc/x}); empty when no such mount covers it.
     */
    Optional<String> repositoryPathOf(String service, String containerPath) {
        for (Object volume : list(service(service).get("volumes"))) {
            String[] parts = String.valueOf(volume).split(":");
            if (parts.length < 2 || !parts[0].startsWith("./")) {
                continue;
            }
            String target = parts[1].endsWith("/") ? parts[1] : parts[1] + "/";
            if (containerPath.equals(parts[1]) || containerPath.startsWith(target)) {
                String rest = containerPath.substring(parts[1].length());
                return Optional.of(Path.of(parts[0].substring(2) + rest).normalize().toString());
            }
        }
        return Optional.empty();
    }

    /**
     * The named volumes the service mounts (not bind mounts of the repository or the host): volume name → its
     * container path, in the order written.
     */
    Map<String, String> namedVolumes(String service) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Object volume : list(service(service).get("volumes"))) {
            String[] parts = String.valueOf(volume).split(":");
            if (parts.length >= 2 && !parts[0].startsWith(".") && !parts[0].startsWith("/")) {
                out.put(parts[0], parts[1]);
            }
        }
        return out;
    }

    /** Whether the service mounts the named volume read-only. */
    boolean mountsReadOnly(String service, String volume) {
        return list(service(service).get("volumes")).stream().map(String::valueOf)
                .anyMatch(v -> v.startsWith(volume + ":") && v.endsWith(":ro"));
    }

    /** The named volume mounted at exactly {@code containerPath} (a trailing slash aside), if any. */
    Optional<String> volumeAt(String service, String containerPath) {
        String wanted = containerPath.replaceAll("/+$", "");
        return namedVolumes(service).entrySet().stream()
                .filter(e -> e.getValue().replaceAll("/+$", "").equals(wanted)).map(Map.Entry::getKey).findFirst();
    }

    String image(String service) {
        return String.valueOf(service(service).get("image"));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    static List<?> list(Object o) {
        return o instanceof List<?> l ? l : List.of();
    }

    static Path file() {
        return Repo.path("docker-compose.yml");
    }
}
