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

    /**
     * What the page may load and who may frame it: its own scripts, styles and API only (the built page has no inline
     * script or style; React sets styles through the DOM, which the policy allows), never framed (a page of another
     * site could otherwise lay the console under its own and have an administrator click "cancel" unaware). The
     * user's key is in the page's session storage: a script injected from elsewhere could read it.
     */
    static final String POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    @GetMapping({"/console/", "/console/index.html"})
    ResponseEntity<byte[]> page() {
        return ResponseEntity.ok().contentType(MediaType.TEXT_HTML).cacheControl(CacheControl.noCache())
                .header("Content-Security-Policy", POLICY).header("X-Frame-Options", "DENY")
                .header("X-Content-Type-Options", "nosniff").header("Referrer-Policy", "no-referrer").body(page);
    }
}
