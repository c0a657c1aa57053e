package io.fleetjobs.migrations;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Applies the schema's migrations. As a program it is the one-shot of compose and the Kubernetes
 * Job: {@code java -jar db-migrations-exec.jar} with {@code JOBS_DB_URL}, {@code JOBS_DB_USER} and
 * {@code JOBS_DB_PASSWORD} (or {@code JOBS_DB_PASSWORD_FILE}, a file holding it, as compose gives it). Services
 * and tests call {@link #apply(DataSource)}.
 */
public final class Migrate {
    public static final String LOCATION = "classpath:db/migration";

    private Migrate() {
    }

    public static MigrateResult apply(DataSource dataSource) {
        return Flyway.configure().dataSource(dataSource).locations(LOCATION).load().migrate();
    }

    /** The password given, else the content of the file named (a trailing newline dropped), else none. */
    static String password(String given, String file) {
        if (given != null && !given.isEmpty()) {
            return given;
        }
        if (file == null || file.isBlank()) {
            return null;
        }
        try {
            return Files.readString(Path.of(file)).replaceFirst("\\r?\\n$", "");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read JOBS_DB_PASSWORD_FILE " + file, e);
        }
    }

    public static void main(String[] args) {
        String url = System.getenv("JOBS_DB_URL");
        if (url == null || url.isBlank()) {
            System.err.println("JOBS_DB_URL is not set: name the database, e.g. jdbc:postgresql://db:5432/jobs");
            System.exit(2);
        }
        MigrateResult result = Flyway.configure()
                .dataSource(url, System.getenv("JOBS_DB_USER"),
                        password(System.getenv("JOBS_DB_PASSWORD"), System.getenv("JOBS_DB_PASSWORD_FILE")))
                .locations(LOCATION).connectRetries(30).load().migrate();
        System.out.printf("schema at version %s (%d migrations applied)%n", result.targetSchemaVersion,
                result.migrationsExecuted);
    }
}
