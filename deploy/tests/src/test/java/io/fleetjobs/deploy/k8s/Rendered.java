package io.fleetjobs.deploy.k8s;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The objects an overlay renders to, as {@code kubectl kustomize} writes them. */
record Rendered(String overlay, List<Map<String, Object>> objects) {

    static boolean kubectlAvailable() {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "kubectl"))) {
                return true;
            }
        }
        return false;
    }

    /** Runs {@code kubectl kustomize} on the overlay's directory (offline: it only reads the files). */
    static Rendered render(String overlay, Path directory) {
        try {
            Process process = new ProcessBuilder("kubectl", "kustomize", directory.toString()).start();
            process.getOutputStream().close();
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()));
            String out = readAll(process.getInputStream());
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("kubectl kustomize " + directory + " did not finish");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("kubectl kustomize " + directory + " failed (" + process.exitValue() + "): "
                        + err.join());
            }
            return new Rendered(overlay, Yamls.documents(out));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String readAll(java.io.InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    List<Map<String, Object>> ofKind(String kind) {
        return objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
    }

    Optional<Map<String, Object>> find(String kind, String name) {
        return ofKind(kind).stream().filter(o -> name.equals(Yamls.string(o, "metadata", "name"))).findFirst();
    }

    /** The keys of a ConfigMap or Secret in the render, values decoded (Secrets' data is base64). */
    Optional<Map<String, String>> keys(String kind, String name) {
        return find(kind, name).map(o -> {
            Map<String, String> values = new java.util.LinkedHashMap<>();
            Yamls.strings(o, "data").forEach((k, v) -> values.put(k,
                    "Secret".equals(kind) ? new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8) : v));
            values.putAll(Yamls.strings(o, "stringData"));
            return values;
        });
    }

    /** Deployments, DaemonSets, StatefulSets and Jobs: everything with a pod template. */
    List<Map<String, Object>> workloads() {
        return objects.stream()
                .filter(o -> List.of("Deployment", "DaemonSet", "StatefulSet", "Job").contains(o.get("kind")))
                .toList();
    }

    static String name(Map<String, Object> object) {
        return Yamls.string(object, "metadata", "name");
    }

    static String describe(Map<String, Object> object) {
        return object.get("kind") + "/" + name(object);
    }
}
