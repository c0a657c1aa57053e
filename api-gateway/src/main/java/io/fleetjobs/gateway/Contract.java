package io.fleetjobs.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The public contract, published by the gateway without a token: {@code api/openapi.yaml} as the build copied
 * it ({@code GET /openapi.yaml}, byte for byte), the same document as JSON ({@code GET /v3/api-docs}), and
 * Swagger UI over it ({@code GET /swagger-ui.html}; the page is {@code static/swagger-ui/}, the UI the
 * {@code org.webjars:swagger-ui} webjar).
 */
@RestController
class Contract {
    static final String RESOURCE = "/contract/openapi.yaml";
    static final MediaType YAML = MediaType.parseMediaType("application/yaml");

    private final byte[] yaml;
    private final String json;

    Contract() {
        try (InputStream in = Contract.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing: the build copies it from api/openapi.yaml");
            }
            yaml = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        json = JsonMapper.builder().build().writeValueAsString(YAMLMapper.builder().build().readTree(yaml));
    }

    @GetMapping("/openapi.yaml")
    ResponseEntity<byte[]> yaml() {
        return ResponseEntity.ok().contentType(YAML).body(yaml);
    }

    @GetMapping("/v3/api-docs")
    ResponseEntity<String> json() {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(json);
    }

    @GetMapping({"/swagger-ui.html", "/swagger-ui", "/swagger-ui/"})
    ResponseEntity<Void> swaggerUi() {
        return ResponseEntity.status(302).header("Location", "/swagger-ui/index.html").build();
    }
}
