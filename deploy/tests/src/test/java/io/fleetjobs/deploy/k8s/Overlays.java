package io.fleetjobs.deploy.k8s;

import io.fleetjobs.deploy.Repo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The overlays under k8s/overlays, what each promises, and the Secrets k8s/README.md documents as external. */
final class Overlays {
    static final Path K8S = Repo.path("k8s");
    private static final Pattern SECRET_ROW = Pattern.compile("^\\| `([a-z0-9.-]+)` \\| (.+) \\|\\s*$");
    private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");

    private Overlays() {
    }

    static List<String> names() {
        try (Stream<Path> dirs = Files.list(K8S.resolve("overlays"))) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("kustomization.yaml")))
                    .map(d -> d.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path directory(String overlay) {
        return K8S.resolve("overlays").resolve(overlay);
    }

    static Map<String, Object> kustomization(Path directory) {
        return Yamls.documents(Modules.read(directory.resolve("kustomization.yaml"))).getFirst();
    }

    /** The overlay's images: name to newTag. */
    static Map<String, String> imageTags(String overlay) {
        Map<String, String> tags = new LinkedHashMap<>();
        for (Map<String, Object> image : Yamls.maps(kustomization(directory(overlay)), "images")) {
            tags.put(Yamls.string(image, "name"), Yamls.string(image, "newTag"));
        }
        return tags;
    }

    /** The table under "## External Secrets" in k8s/README.md: Secret name to its keys. */
    static Map<String, Set<String>> documentedExternalSecrets() {
        Map<String, Set<String>> secrets = new LinkedHashMap<>();
        boolean inSection = false;
        for (String line : Modules.read(K8S.resolve("README.md")).split("\n")) {
            if (line.startsWith("## ")) {
                inSection = line.startsWith("## External Secrets");
                continue;
            }
            Matcher row = SECRET_ROW.matcher(line);
            if (inSection && row.matches()) {
                Set<String> keys = new LinkedHashSet<>();
                Matcher key = BACKTICKED.matcher(row.group(2));
                while (key.find()) {
                    keys.add(key.group(1));
                }
                secrets.put(row.group(1), keys);
            }
        }
        return secrets;
    }

    /** What each overlay promises; a new overlay needs a line here. */
    static ManifestChecks.Expectations expectations(String overlay) {
        return switch (overlay) {
            case "dev" -> new ManifestChecks.Expectations(imageTags(overlay), 2, false, Map.of());
            case "production" -> new ManifestChecks.Expectations(imageTags(overlay), 3, true, documentedExternalSecrets());
            default -> throw new IllegalStateException("k8s/overlays/" + overlay + " has no expectations in "
                    + Overlays.class.getName());
        };
    }
}
