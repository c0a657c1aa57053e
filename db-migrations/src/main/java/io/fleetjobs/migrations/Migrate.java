package io.fleetjobs.migrations;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Applies the schema's migrations. As a program it is the one-shot of compose and the Kubernetes
 * Job: {@code java -jar db-migrations-exec.jar} with {@code JOBS_DB_URL}, {@code JOBS_DB_USER} and
 * {@code JOBS_DB_PASSWORD}. Services and tests call {@link #apply(DataSource)}.
 */
public final class Migrate {
    public static final String LOCATION = "classpath:db/migration";

    private Migrate() {
    }

    public static MigrateResult apply(DataSource dataSource) {
        return Flyway.configure().dataSource(dataSource).locations(LOCATION).load().migrate();
    }

    public static void main(String[] args) {
        String url = System.getenv("JOBS_DB_URL");
        if (url == null || url.isBlank()) {
            System.err.println("JOBS_DB_URL is not set: name the database, e.g. jdbc:postgresql://db:5432/jobs");
            System.exit(2);
        }
        MigrateResult result = Flyway.configure()
                .dataSource(url, System.getenv("JOBS_DB_USER"), System.getenv("JOBS_DB_PASSWORD"))
                .locations(LOCATION).connectRetries(30).load().migrate();
        System.out.printf("schema at version %s (%d migrations applied)%n", result.targetSchemaVersion,
                result.migrationsExecuted);
    }
}
