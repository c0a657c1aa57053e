package io.fleetjobs.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.support.SignedIdentity.Target;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class SignedIdentityTest {
    private static final String SECRET = "a-shared-secret-of-some-length";
    private static final Target LIST = new Target("job-service", "GET", "/api/v1/jobs?state=QUEUED");
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    private final InstantSource clock = () -> now.get();
    private final SignedIdentity gateway = new SignedIdentity(SECRET, clock);
    private final SignedIdentity service = new SignedIdentity(SECRET, clock);
    private final CallerIdentity alice = new CallerIdentity(UUID.randomUUID(), "alice", CallerIdentity.Role.USER);

    @Test
    void whatIsSignedVerifiesForItsRequestUntilItExpires() {
        SignedIdentity.Signed signed = gateway.sign(alice, LIST);
        assertThat(signed.value()).startsWith("2;" + alice.tenantId() + ";alice;USER;"
                + now.get().plus(SignedIdentity.VALIDITY).getEpochSecond() + ";").endsWith(";job-service");
        now.set(now.get().plus(SignedIdentity.VALIDITY));
        assertThat(service.verify(signed.value(), signed.signature(), LIST)).contains(alice);

        SignedIdentity.Signed late = gateway.sign(alice, LIST);
        now.set(now.get().plus(SignedIdentity.VALIDITY).plusSeconds(1));
        assertThat(service.verify(late.value(), late.signature(), LIST)).as("expired").isEmpty();
    }

    @Test
    void anIdentityVerifiesOnceOnly() {
        SignedIdentity.Signed signed = gateway.sign(alice, LIST);
        assertThat(service.verify(signed.value(), signed.signature(), LIST)).contains(alice);
        assertThat(service.verify(signed.value(), signed.signature(), LIST)).as("the same call replayed").isEmpty();
        SignedIdentity.Signed next = gateway.sign(alice, LIST);
        assertThat(next.value()).isNotEqualTo(signed.value());
        assertThat(service.verify(next.value(), next.signature(), LIST)).as("a fresh one").contains(alice);
    }

    @Test
    void anIdentityIsBoundToItsServiceMethodPathAndQuery() {
        for (Target other : new Target[] {new Target("scheduler-service", "GET", "/api/v1/jobs?state=QUEUED"),
                new Target("job-service", "DELETE", "/api/v1/jobs?state=QUEUED"),
                new Target("job-service", "GET", "/api/v1/jobs"),
                new Target("job-service", "GET", "/api/v1/jobs?state=RUNNING"),
                new Target("job-service", "GET", "/api/v1/admin/tenants")}) {
            SignedIdentity.Signed signed = gateway.sign(alice, LIST);
            assertThat(service.verify(signed.value(), signed.signature(), other)).as("%s", other).isEmpty();
        }
        SignedIdentity.Signed forScheduler = gateway.sign(alice, new Target("scheduler-service", "GET", "/api/v1/jobs?state=QUEUED"));
        assertThat(service.verify(forScheduler.value(), forScheduler.signature(), LIST))
                .as("made for another service, presented to this one").isEmpty();
    }

    @Test
    void theQueryIsSignedForWhatItSaysNotHowAProxySpellsIt() {
        Target sent = Target.of("job-service", "GET", "/api/v1/jobs", "state=QUEUED&limit=5&pageToken=a%2Bb%3D");
        assertThat(Target.of("job-service", "GET", "/api/v1/jobs", "limit=5&pageToken=a%2bb%3d&state=QUEUED"))
                .as("another order, other escapes").isEqualTo(sent);
        assertThat(Target.of("job-service", "GET", "/api/v1/jobs", "state=QUEUED&limit=6&pageToken=a%2Bb%3D"))
                .as("another value").isNotEqualTo(sent);
        assertThat(Target.of("job-service", "GET", "/api/v1/jobs", null)).isEqualTo(new Target("job-service", "GET", "/api/v1/jobs"));
    }

    @Test
    void forgedTamperedOrForeignIdentitiesDoNotVerify() {
        SignedIdentity.Signed signed = gateway.sign(alice, LIST);
        String admin = signed.value().replace(";USER;", ";ADMIN;");
        assertThat(service.verify(admin, signed.signature(), LIST)).isEmpty();
        assertThat(service.verify(signed.value(), null, LIST)).isEmpty();
        assertThat(service.verify(null, signed.signature(), LIST)).isEmpty();
        assertThat(service.verify(signed.value(), "not base64 !", LIST)).isEmpty();
        assertThat(service.verify(signed.value(), signed.signature().substring(1), LIST)).isEmpty();

        SignedIdentity.Signed foreign = new SignedIdentity("another-secret-entirely", clock).sign(alice, LIST);
        assertThat(service.verify(foreign.value(), foreign.signature(), LIST)).isEmpty();

        SignedIdentity none = new SignedIdentity("", clock);
        assertThat(none.verify(signed.value(), signed.signature(), LIST)).isEmpty();
        assertThatThrownBy(() -> none.sign(alice, LIST)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anIdentityClaimingALongLifeIsRefusedEvenWhenSigned() {
        // signed by a gateway whose clock runs ten minutes ahead
        SignedIdentity ahead = new SignedIdentity(SECRET, () -> now.get().plus(Duration.ofMinutes(10)));
        SignedIdentity.Signed signed = ahead.sign(alice, LIST);
        assertThat(service.verify(signed.value(), signed.signature(), LIST)).isEmpty();
    }

    @Test
    void malformedValuesAreRefusedEvenWithAValidMac() {
        long expires = now.get().plusSeconds(5).getEpochSecond();
        String id = alice.tenantId().toString();
        for (String value : new String[] {"2;x;alice;USER;" + expires + ";n1;job-service",
                "2;" + id + ";al ice;USER;" + expires + ";n2;job-service",
                "2;" + id + ";alice;ROOT;" + expires + ";n3;job-service",
                "2;" + id + ";alice;USER;soon;n4;job-service",
                "2;" + id + ";alice;USER;" + expires + ";n5",
                "1;" + id + ";alice;USER;" + expires + ";n6;job-service",
                id + ";alice;USER;" + expires, // the old form
                "2;" + id + ";alice;USER;" + expires + ";n7;job-service;extra"}) {
            String mac = Base64.getUrlEncoder().withoutPadding().encodeToString(hmac(value, LIST));
            assertThat(service.verify(value, mac, LIST)).as(value).isEmpty();
        }
    }

    @Test
    void shortSecretsAndBadNamesAreRefused() {
        assertThatThrownBy(() -> new SignedIdentity("short", clock)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CallerIdentity(UUID.randomUUID(), "a;b", CallerIdentity.Role.USER))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static byte[] hmac(String value, Target target) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal((value + "\n" + target.method() + "\n" + target.pathAndQuery())
                    .getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
