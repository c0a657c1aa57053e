package io.fleetjobs.gateway;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A token issuer for tests: an RSA key made here, its public half served as a JWKS (and an OpenID discovery
 * document naming it) from a local HTTP server, and tokens signed with Nimbus.
 */
final class TestIssuer implements AutoCloseable {
    static final String AUDIENCE = "fleetjobs";
    static final String KEY_ID = "test-key-1";

    private final RSAKey key = newKey();
    /** Another key under the same id: what it signs fails the signature check. */
    private final RSAKey impostor = newKey();
    private final HttpServer server;

    TestIssuer() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/.well-known/openid-configuration", exchange -> answer(exchange,
                "{\"issuer\":\"" + issuer() + "\",\"jwks_uri\":\"" + jwkSetUri() + "\"}"));
        server.createContext("/jwks", exchange -> answer(exchange, new JWKSet(key.toPublicJWK()).toString()));
        server.start();
    }

    String issuer() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    String jwkSetUri() {
        return issuer() + "/jwks";
    }

    /** Claims a good token of this issuer has: issuer, audience, subject, a tenant, five minutes to live. */
    JWTClaimsSet.Builder claims(String tenant, String... roles) {
        Instant now = Instant.now();
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder().issuer(issuer()).audience(AUDIENCE).subject("someone")
                .issueTime(Date.from(now)).expirationTime(Date.from(now.plus(Duration.ofMinutes(5))))
                .claim("roles", List.of(roles));
        return tenant == null ? claims : claims.claim("tenant", tenant);
    }

    String token(String tenant, String... roles) {
        return sign(key, claims(tenant, roles).build());
    }

    String token(String tenant, UnaryOperator<JWTClaimsSet.Builder> change) {
        return sign(key, change.apply(claims(tenant, "user")).build());
    }

    String signedByImpostor(String tenant) {
        return sign(impostor, claims(tenant, "user").build());
    }

    private static String sign(RSAKey with, JWTClaimsSet claims) {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(with.getKeyID()).build(), claims);
        try {
            jwt.sign(new RSASSASigner(with));
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return jwt.serialize();
    }

    private static RSAKey newKey() {
        try {
            return new RSAKeyGenerator(2048).keyID(KEY_ID).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void answer(HttpExchange exchange, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
