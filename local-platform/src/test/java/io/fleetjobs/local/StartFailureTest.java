package io.fleetjobs.local;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What run-local shows of a service that did not start: its cause first, never the JVM's class-data warnings. */
class StartFailureTest {
    private static final String SPRING_FAILURE = """
            [1.650s][warning][cds] class org/springframework/core/type/classreading/ClassFileMetadataReaderFactory cannot be archived
            2026-12-01T20:08:31.914Z  INFO 3385 --- [job-service] [           main] i.f.jobservice.JobServiceApplication     : Starting
            2026-12-01T20:08:38.219Z ERROR 3385 --- [job-service] [           main] o.s.boot.SpringApplication               : Application run failed
            org.springframework.beans.factory.UnsatisfiedDependencyException: Error creating bean with name 'jobStore'
            \tat org.springframework.beans.factory.support.ConstructorResolver.createArgumentArray(ConstructorResolver.java:804)
            Caused by: org.flywaydb.core.internal.exception.sqlExceptions.FlywaySqlUnableToConnectToDbException: Unable to obtain connection
            \tat org.flywaydb.core.internal.jdbc.JdbcUtils.openConnection(JdbcUtils.java:70)
            \t... 58 more
            Caused by: java.net.ConnectException: Connection refused
            \tat java.base/sun.nio.ch.Net.pollConnect(Native Method)
            \t... 70 common frames omitted
            [8.437s][warning][cds] Skipping jdk/proxy2/$Proxy2: Unsupported location
            [8.437s][warning][cds] Skipping org/springframework/core/$Proxy87: Unsupported location
            [8.437s][warning][cds,dynamic] Skipping io/github/resilience4j/RxJava2RateLimiterAspectExt: Failed verification
            """;

    @Test
    void theRootCauseComesFirstAndTheClassDataWarningsAndStackFramesAreLeftOut() {
        String shown = Processes.startFailure(SPRING_FAILURE, 12);

        assertThat(shown.lines().findFirst()).hasValue("  cause: java.net.ConnectException: Connection refused");
        assertThat(shown).contains("Application run failed").doesNotContain("[cds").doesNotContain("\tat ")
                .doesNotContain("more");
    }

    @Test
    void springBootsFailureAnalysisIsShown() {
        String output = """
                2026-12-01T20:08:38.219Z ERROR 1 --- [main] o.s.b.d.LoggingFailureAnalysisReporter :

                ***************************
                APPLICATION FAILED TO START
                ***************************

                Description:

                Web server failed to start. Port 8081 was already in use.

                Action:

                Identify and stop the process that's listening on port 8081.

                2026-12-01T20:08:39.000Z  INFO 1 --- [main] something after
                """;

        String shown = Processes.startFailure(output, 3);

        assertThat(shown).contains("  Web server failed to start. Port 8081 was already in use.")
                .contains("  Identify and stop the process that's listening on port 8081.");
    }

    @Test
    void anExceptionWithoutACauseIsTheCause() {
        assertThat(Processes.startFailure("starting\njava.lang.IllegalStateException: set JOBS_INTERNAL_SECRET\n\tat x.y(Z.java:1)\n", 5))
                .startsWith("  cause: java.lang.IllegalStateException: set JOBS_INTERNAL_SECRET");
    }
}
