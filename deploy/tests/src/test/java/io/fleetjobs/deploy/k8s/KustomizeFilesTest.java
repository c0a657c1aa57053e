package io.fleetjobs.deploy.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The kustomize files as plain YAML, without kubectl: they parse, every file they name exists and holds
 * Kubernetes objects, the overlays tag every image, the schema version the pods wait for is the newest
 * migration, the base's ports are the services' ports, and every Secret key the base takes is
 * documented for production.
 */
class KustomizeFilesTest {

    @Test
    void everyKustomizationParsesAndNamesFilesThatExist() throws IOException {
        List<Path> kustomizations;
        try (Stream<Path> files = Files.walk(Overlays.K8S)) {
            kustomizations = files.filter(p -> p.getFileName().toString().equals("kustomization.yaml")).toList();
        }
        assertThat(kustomizations).extracting(p -> Overlays.K8S.relativize(p).toString()).contains(
                "base/kustomization.yaml", "overlays/dev/kustomization.yaml", "overlays/production/kustomization.yaml");

        List<String> problems = new ArrayList<>();
        for (Path kustomization : kustomizations) {
            Path dir = kustomization.getParent();
            Map<String, Object> k = Overlays.kustomization(dir);
            if (!List.of("Kustomization", "Component").contains(k.get("kind"))) {
                problems.add(kustomization + " is a " + k.get("kind"));
            }
            List<String> named = new ArrayList<>();
            for (String field : List.of("resources", "components")) {
                Yamls.asList(k.get(field)).forEach(o -> named.add(String.valueOf(o)));
            }
            Yamls.maps(k, "patches").stream().map(p -> Yamls.string(p, "path")).filter(p -> p != null).forEach(named::add);
            for (String entry : named) {
                Path target = dir.resolve(entry).normalize();
                if (Files.isDirectory(target)) {
                    if (!Files.isRegularFile(target.resolve("kustomization.yaml"))) {
                        problems.add(kustomization + " names " + entry + ", a directory without a kustomization.yaml");
                    }
                } else if (!Files.isRegularFile(target)) {
                    problems.add(kustomization + " names " + entry + ", which does not exist");
                } else {
                    for (Map<String, Object> object : Yamls.documents(Modules.read(target))) {
                        for (String field : List.of("apiVersion", "kind")) {
                            if (object.get(field) == null) {
                                problems.add(target + ": an object without " + field);
                            }
                        }
                        if (Yamls.string(object, "metadata", "name") == null) {
                            problems.add(target + ": a " + object.get("kind") + " without a name");
                        }
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void everyOverlayTagsEveryImageOfTheBase() {
        Set<String> images = new LinkedHashSet<>();
        for (Map<String, Object> object : baseObjects()) {
            for (String list : List.of("containers", "initContainers")) {
                Yamls.maps(object, "spec", "template", "spec", list).stream().map(c -> Yamls.string(c, "image"))
                        .filter(i -> i.startsWith("fleetjobs/")).forEach(images::add);
            }
        }
        assertThat(images).contains("fleetjobs/api-gateway", "fleetjobs/job-service", "fleetjobs/scheduler-service",
                "fleetjobs/reconciler-service", "fleetjobs/worker-agent", "fleetjobs/db-migrations");
        for (String image : images) {
            assertThat(image).as("the base leaves tags to the overlays").doesNotContain(":");
            assertThat(Modules.isModule(image.substring("fleetjobs/".length()))).as(image + " is a module's image").isTrue();
        }
        for (String overlay : Overlays.names()) {
            Map<String, String> tags = Overlays.imageTags(overlay);
            assertThat(tags).as("k8s/overlays/" + overlay + " images").containsKeys(images.toArray(String[]::new));
            tags.forEach((image, tag) -> assertThat(tag).as(overlay + " " + image).isNotBlank().isNotEqualTo("latest"));
        }
    }

    @Test
    void thePodsWaitForTheNewestMigration() {
        Map<String, String> config = baseConfigMap("fleetjobs-config");

        assertThat(config.get("JOBS_SCHEMA_VERSION"))
                .as("JOBS_SCHEMA_VERSION in k8s/base/kustomization.yaml: the newest db-migrations migration")
                .isEqualTo(Modules.newestMigration());
        assertThat(config.get("JOBS_DB_MIGRATE")).isEqualTo("false");
    }

    @Test
    void theBaseListensOnTheServicesPorts() {
        Map<String, Integer> ports = Modules.servicePorts();
        Map<String, Integer> management = Modules.managementPorts();
        Map<String, Object> seen = new LinkedHashMap<>();
        for (Map<String, Object> object : baseObjects()) {
            String name = Rendered.name(object);
            if (!ports.containsKey(name)) {
                continue;
            }
            if ("Deployment".equals(object.get("kind"))) {
                Map<String, Object> container = Yamls.maps(object, "spec", "template", "spec", "containers").getFirst();
                assertThat(Yamls.maps(container, "ports")).as(name).extracting(p -> p.get("containerPort"))
                        .as("%s: server.port, then management.server.port", name).containsExactly(ports.get(name), management.get(name));
                seen.put("Deployment/" + name, container);
            } else if ("Service".equals(object.get("kind"))) {
                assertThat(Yamls.maps(object, "spec", "ports")).as(name).extracting(p -> p.get("port"))
                        .containsExactly(ports.get(name), management.get(name));
                seen.put("Service/" + name, object);
            }
        }
        assertThat(seen).hasSize(2 * ports.size());
    }

    @Test
    void everySecretKeyTheBaseTakesIsDocumentedForProduction() {
        Map<String, Set<String>> documented = Overlays.documentedExternalSecrets();
        assertThat(documented).containsKeys("fleetjobs-db", "fleetjobs-tokens", "fleetjobs-agent");

        List<String> undocumented = new ArrayList<>();
        for (Map<String, Object> object : baseObjects()) {
            Map<String, Object> pod = Yamls.map(object, "spec", "template", "spec");
            List<Map<String, Object>> containers = new ArrayList<>(Yamls.maps(pod, "containers"));
            containers.addAll(Yamls.maps(pod, "initContainers"));
            for (Map<String, Object> container : containers) {
                for (Map<String, Object> env : Yamls.maps(container, "env")) {
                    String secret = Yamls.string(env, "valueFrom", "secretKeyRef", "name");
                    String key = Yamls.string(env, "valueFrom", "secretKeyRef", "key");
                    if (secret != null && !documented.getOrDefault(secret, Set.of()).contains(key)) {
                        undocumented.add(Rendered.describe(object) + ": " + secret + "/" + key);
                    }
                }
            }
            for (Map<String, Object> volume : Yamls.maps(pod, "volumes")) {
                String secret = Yamls.string(volume, "secret", "secretName");
                if (secret != null && !documented.containsKey(secret)) {
                    undocumented.add(Rendered.describe(object) + ": " + secret);
                }
            }
        }
        assertThat(undocumented).as("Secrets missing from the table in k8s/README.md").isEmpty();
    }

    private static List<Map<String, Object>> baseObjects() {
        Path base = Overlays.K8S.resolve("base");
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object resource : Yamls.asList(Overlays.kustomization(base).get("resources"))) {
            objects.addAll(Yamls.documents(Modules.read(base.resolve(String.valueOf(resource)))));
        }
        return objects;
    }

    private static Map<String, String> baseConfigMap(String name) {
        for (Map<String, Object> generator : Yamls.maps(Overlays.kustomization(Overlays.K8S.resolve("base")), "configMapGenerator")) {
            if (name.equals(generator.get("name"))) {
                Map<String, String> values = new LinkedHashMap<>();
                for (Object literal : Yamls.asList(generator.get("literals"))) {
                    String text = String.valueOf(literal);
                    int eq = text.indexOf('=');
                    values.put(text.substring(0, eq), text.substring(eq + 1));
                }
                return values;
            }
        }
        throw new IllegalStateException("no configMapGenerator " + name + " in k8s/base");
    }
}
