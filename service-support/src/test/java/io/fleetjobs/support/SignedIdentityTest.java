package io.fleetjobs.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SignedIdentityTest {
    private static final String SECRET = "a-shared-secret-of-some-length";
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    private final InstantSource clock = () -> now.get();
    private final SignedIdentity identities = new SignedIdentity(SECRET, clock);
    private final CallerIdentity alice = new CallerIdentity(UUID.randomUUID(), "alice", CallerIdentity.Role.USER);

    @Test
    void whatIsSignedVerifiesUntilItExpires() {
        SignedIdentity.Signed signed = identities.sign(alice);
        assertThat(signed.value()).isEqualTo(alice.tenantId() + ";alice;USER;" + now.get().plusSeconds(60).getEpochSecond());
        assertThat(identities.verify(signed.value(), signed.signature())).contains(alice);

        now.set(now.get().plus(SignedIdentity.VALIDITY));
        assertThat(identities.verify(signed.value(), signed.signature())).contains(alice);
        now.set(now.get().plus(Duration.ofSeconds(1)));
        assertThat(identities.verify(signed.value(), signed.signature())).isEmpty();
    }

    @Test
    void forgedTamperedOrForeignIdentitiesDoNotVerify() {
        SignedIdentity.Signed signed = identities.sign(alice);
        String admin = signed.value().replace(";USER;", ";ADMIN;");
        assertThat(identities.verify(admin, signed.signature())).isEmpty();
        assertThat(identities.verify(signed.value(), null)).isEmpty();
        assertThat(identities.verify(null, signed.signature())).isEmpty();
        assertThat(identities.verify(signed.value(), "not base64 !")).isEmpty();
        assertThat(identities.verify(signed.value(), signed.signature().substring(1))).isEmpty();

        SignedIdentity other = new SignedIdentity("another-secret-entirely", clock);
        SignedIdentity.Signed foreign = other.sign(alice);
        assertThat(identities.verify(foreign.value(), foreign.signature())).isEmpty();

        SignedIdentity none = new SignedIdentity("", clock);
        assertThat(none.verify(signed.value(), signed.signature())).isEmpty();
        assertThatThrownBy(() -> none.sign(alice)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anIdentityClaimingALongLifeIsRefusedEvenWhenSigned() {
        // signed by a gateway whose clock runs ten minutes ahead
        SignedIdentity ahead = new SignedIdentity(SECRET, () -> now.get().plus(Duration.ofMinutes(10)));
        SignedIdentity.Signed signed = ahead.sign(alice);
        assertThat(identities.verify(signed.value(), signed.signature())).isEmpty();
    }

    @Test
    void malformedValuesAreRefusedEvenWithAValidMac() {
        long expires = now.get().plusSeconds(30).getEpochSecond();
        for (String value : new String[] {"x;alice;USER;" + expires, alice.tenantId() + ";al ice;USER;" + expires,
                alice.tenantId() + ";alice;ROOT;" + expires, alice.tenantId() + ";alice;USER", alice.tenantId() + ";alice;USER;soon",
                alice.tenantId() + ";alice;USER;" + expires + ";extra"}) {
            String mac = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(hmac(value));
            assertThat(identities.verify(value, mac)).as(value).isEmpty();
        }
    }

    @Test
    void shortSecretsAndBadNamesAreRefused() {
        assertThatThrownBy(() -> new SignedIdentity("short", clock)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CallerIdentity(UUID.randomUUID(), "a;b", CallerIdentity.Role.USER))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static byte[] hmac(String value) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(SECRET.getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
