package io.fleetjobs.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.testsupport.TestDatabases;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The web console as the gateway serves it: reached from {@code /}, its page and assets without a token. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class WebConsoleTest {
    private static final TestDatabases.Database DB = TestDatabases.create();
    private static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DB::url);
        registry.add("spring.datasource.username", DB::user);
        registry.add("spring.datasource.password", DB::password);
        registry.add("jobs.internal-secret", () -> "web-console-test-internal-secret");
    }

    @Test
    void theRootAndConsoleWithoutSlashLeadToTheConsole() throws Exception {
        for (String path : new String[] {"/", "/console"}) {
            HttpResponse<String> response = get(path);
            assertThat(response.statusCode()).as(path).isEqualTo(302);
            assertThat(response.headers().firstValue("Location")).as(path).hasValue("/console/");
        }
    }

    @Test
    void thePageAndItsAssetsNeedNoToken() throws Exception {
        HttpResponse<String> page = get("/console/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-cache");
        assertThat(page.body()).contains("<div id=\"root\"></div>");
        // its own scripts and API only, never framed (the browser test checks the console works under it)
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(p -> assertThat(p)
                .contains("script-src 'self'").contains("frame-ancestors 'none'").doesNotContain("unsafe"));
        assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");

        Matcher script = Pattern.compile("src=\"(/console/assets/[^\"]+\\.js)\"").matcher(page.body());
        assertThat(script.find()).as("the page names its script under /console/assets/").isTrue();
        HttpResponse<String> asset = get(script.group(1));
        assertThat(asset.statusCode()).isEqualTo(200);
        assertThat(asset.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).contains("javascript"));
        assertThat(asset.body()).contains("FleetJobs");

        Matcher style = Pattern.compile("href=\"(/console/assets/[^\"]+\\.css)\"").matcher(page.body());
        assertThat(style.find()).isTrue();
        assertThat(get(style.group(1)).statusCode()).isEqualTo(200);
    }

    @Test
    void theApiStillWantsAKey() throws Exception {
        assertThat(get("/api/v1/jobs").statusCode()).isEqualTo(401);
        assertThat(get("/console/assets/no-such-file.js").statusCode()).isEqualTo(404);
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
