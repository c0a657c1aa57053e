package io.fleetjobs.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;

/** The parts of JWT checking that need no gateway: telling JWTs from keys, roles, and a decoder on a JWK set URI. */
class JwtCallersTest {
    private static final TestIssuer ISSUER = new TestIssuer();

    @AfterAll
    static void stop() {
        ISSUER.close();
    }

    @Test
    void jwtsAreToldFromApiKeys() {
        assertThat(JwtCallers.looksLikeJwt(ISSUER.token("t", "user"))).isTrue();
        assertThat(JwtCallers.looksLikeJwt("fj_AbCdEf0123-_xyz")).isFalse();
        assertThat(JwtCallers.looksLikeJwt("change-me")).isFalse();
        assertThat(JwtCallers.looksLikeJwt("a.b.c")).as("three parts, but no JSON header").isFalse();
        assertThat(JwtCallers.looksLikeJwt("e30.e30.")).as("{} has no alg").isFalse();
        assertThat(JwtCallers.looksLikeJwt("eyJhbGciOiJub25lIn0.e30.")).as("{\"alg\":\"none\"}").isTrue();
        assertThat(JwtCallers.looksLikeJwt("a.b.c.d")).isFalse();
        assertThat(JwtCallers.looksLikeJwt("%%.e30.x")).isFalse();
    }

    @Test
    void rolesComeAsAListOrAsAScopeString() {
        assertThat(JwtCallers.roles(List.of("user", "admin"))).containsExactly("user", "admin");
        assertThat(JwtCallers.roles("jobs:read admin,other")).containsExactly("jobs:read", "admin", "other");
        assertThat(JwtCallers.roles(null)).isEmpty();
        assertThat(JwtCallers.roles(42)).isEmpty();
    }

    @Test
    void aJwkSetUriAloneChecksSignatureAndExpiryButNoIssuerOrAudience() {
        var settings = new GatewayProperties.Jwt(null, ISSUER.jwkSetUri(), " ", "tenant", "roles", "admin");
        assertThat(settings.audience()).as("blank is unset").isNull();
        var decoder = JwtCallers.decoder(settings);

        Jwt jwt = decoder.decode(ISSUER.token("t", c -> c.issuer("https://anyone.example").audience("anything")));
        assertThat(jwt.getClaimAsString("tenant")).isEqualTo("t");
        assertThatThrownBy(() -> decoder.decode(ISSUER.signedByImpostor("t"))).isInstanceOf(BadJwtException.class);
        assertThatThrownBy(() -> decoder.decode(ISSUER.token("t", c -> c.expirationTime(null))))
                .isInstanceOf(BadJwtException.class).hasMessageContaining("exp");
    }

    @Test
    void withNeitherIssuerNorJwkSetThereIsNoDecoder() {
        var off = new GatewayProperties.Jwt("", null, null, "tenant", "roles", "admin");
        assertThat(off.enabled()).isFalse();
        assertThatThrownBy(() -> JwtCallers.decoder(off)).isInstanceOf(IllegalArgumentException.class);
    }
}
