package io.fleetjobs.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The web console: a single-page application (the web-console module, its built assets under
 * {@code static/console/} of that jar), public like every path outside {@code /api}: the page holds no data, and each
 * of its API calls carries the user's key. {@code /} leads to it. Its assets are served by Spring's static resource
 * handler; their names carry a content hash, while the page itself is always asked for again.
 */
@RestController
class WebConsole {
    static final String PAGE = "/static/console/index.html";

    private final byte[] page;

    WebConsole() {
        try (InputStream in = WebConsole.class.getResourceAsStream(PAGE)) {
            if (in == null) {
                throw new IllegalStateException(PAGE + " is missing: the web-console module builds it");
            }
            page = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @GetMapping({"/", "/console"})
    ResponseEntity<Void> toConsole() {
        return ResponseEntity.status(302).header("Location", "/console/").build();
    }

    @GetMapping({"/console/", "/console/index.html"})
    ResponseEntity<byte[]> page() {
        return ResponseEntity.ok().contentType(MediaType.TEXT_HTML).cacheControl(CacheControl.noCache()).body(page);
    }
}
