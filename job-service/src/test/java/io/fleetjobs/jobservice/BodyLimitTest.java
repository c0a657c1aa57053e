package io.fleetjobs.jobservice;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.testsupport.Api;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** job-service's own port limits bodies too, before the identity is checked: reaching it directly buys no parse. */
class BodyLimitTest extends JobServiceTestBase {
    @Test
    void anOversizedBodyIs413BeforeTheIdentityIsCheckedDeclaredOrChunked() {
        Api stranger = new Api(port, "not-an-identity");
        byte[] big = new byte[1024 * 1024 + 1];
        Arrays.fill(big, (byte) 'x');
        var declared = stranger.post("/api/v1/jobs", new String(big, StandardCharsets.US_ASCII));
        assertThat(declared.status()).isEqualTo(413);
        assertThat(declared.contentType()).startsWith("application/problem+json");
        assertThat(stranger.postStreamed("/api/v1/jobs", big).status()).isEqualTo(413);
        assertThat(stranger.post("/api/v1/jobs", spec("small")).status()).as("within the limit: on to the identity check")
                .isEqualTo(401);

        var chunked = admin.postStreamed("/api/v1/admin/tenants", "{\"name\": \"chunked\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(chunked.status()).as("a chunked body within the limit is read and handed on").isEqualTo(201);
    }
}
