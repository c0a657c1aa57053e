package io.fleetjobs.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.testsupport.TestDatabases;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The reconciler has no API of its own: it starts without the internal secret the other services need, and answers
 * {@code /actuator/health} on its main port (service-support's MainPortHealth) while the actuator has its own port.
 */
class MainPortHealthTest {
    @Test
    void withoutAnInternalSecretItStartsAndAnswersHealthOnItsMainPort() throws Exception {
        TestDatabases.Database db = TestDatabases.create();
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ReconcilerApplication.class).run(
                "--server.port=0", "--management.server.port=0", "--spring.datasource.url=" + db.url(),
                "--spring.datasource.username=" + db.user(), "--spring.datasource.password=" + db.password())) {
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();
            HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://localhost:" + port + "/actuator/health/liveness")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"status\":\"UP\"");
            HttpResponse<String> prometheus = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://localhost:" + port + "/actuator/prometheus")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(prometheus.statusCode()).as("nothing else of the actuator on the main port").isEqualTo(404);
        }
    }
}
