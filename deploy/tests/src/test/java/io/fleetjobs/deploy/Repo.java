package io.fleetjobs.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's root, where the deployment files live; the tests read them from there. */
public final class Repo {
    private Repo() {}

    public static Path root() {
        String configured = System.getProperty("repo.root");
        Path start = configured != null ? Path.of(configured) : Path.of("").toAbsolutePath();
        for (Path p = start.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("mvnw")) && Files.isDirectory(p.resolve("deploy/tests"))) {
                return p;
            }
        }
        throw new IllegalStateException("repository root not found above " + start);
    }

    public static Path path(String relative) {
        return root().resolve(relative);
    }
}
