package io.fleetjobs.gateway;

import io.fleetjobs.store.TenantStore;
import io.fleetjobs.support.CallerIdentity;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtAudienceValidator;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtValidationException;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.SupplierJwtDecoder;

/**
 * JWT bearer tokens to callers, for an issuer configured under {@code jobs.gateway.jwt}: Spring Security's
 * {@link NimbusJwtDecoder} checks the signature against the issuer's published keys (JWKS, fetched on first
 * use and cached by Nimbus), the expiry ({@code exp} required, a minute of clock skew), the issuer and the
 * audience. The tenant is the one the tenant claim names, which must exist on the platform (its id is looked up
 * and reused for a short while, like an API key's); the caller is an admin when the roles claim holds the admin
 * role, else a user.
 */
final class JwtCallers {
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_-]+");
    private static final Pattern TENANT_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private final JwtDecoder decoder;
    private final GatewayProperties.Jwt settings;
    private final TenantStore tenants;
    private final InstantSource clock;
    private final Duration ttl;
    private final ConcurrentHashMap<String, Entry> tenantIds = new ConcurrentHashMap<>();

    JwtCallers(JwtDecoder decoder, GatewayProperties.Jwt settings, TenantStore tenants, InstantSource clock, Duration ttl) {
        this.decoder = decoder;
        this.settings = settings;
        this.tenants = tenants;
        this.clock = clock;
        this.ttl = ttl;
    }

    /**
     * The decoder for these settings: keys from {@code jwkSetUri}, else from the issuer's discovery document;
     * built on first use, so that the gateway starts while the issuer is away.
     */
    static JwtDecoder decoder(GatewayProperties.Jwt settings) {
        if (!settings.enabled()) {
            throw new IllegalArgumentException("jobs.gateway.jwt needs issuer-uri or jwk-set-uri");
        }
        return new SupplierJwtDecoder(() -> {
            NimbusJwtDecoder decoder = (settings.jwkSetUri() != null
                    ? NimbusJwtDecoder.withJwkSetUri(settings.jwkSetUri())
                    : NimbusJwtDecoder.withIssuerLocation(settings.issuerUri())).build();
            decoder.setJwtValidator(validator(settings));
            return decoder;
        });
    }

    /** Expiry (required) and not-before, then the issuer and the audience where configured. */
    static OAuth2TokenValidator<Jwt> validator(GatewayProperties.Jwt settings) {
        List<OAuth2TokenValidator<Jwt>> checks = new ArrayList<>();
        checks.add(new JwtClaimValidator<Instant>(JwtClaimNames.EXP, Objects::nonNull));
        if (settings.issuerUri() != null) {
            checks.add(new JwtIssuerValidator(settings.issuerUri()));
        }
        if (settings.audience() != null) {
            checks.add(new JwtAudienceValidator(settings.audience()));
        }
        return JwtValidators.createDefaultWithValidators(checks); // adds the timestamp check
    }

    /**
     * Whether a bearer token is a JWT rather than an API key: three base64url parts, the first a JSON header
     * with an algorithm. API keys ({@code fj_...}) never are.
     */
    static boolean looksLikeJwt(String token) {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3 || !SEGMENT.matcher(parts[0]).matches() || !SEGMENT.matcher(parts[1]).matches()) {
            return false;
        }
        try {
            String header = new String(Base64.getUrlDecoder().decode(parts[0]), StandardCharsets.UTF_8).strip();
            return header.startsWith("{") && header.contains("\"alg\"");
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
    }

    /**
     * The caller a valid token stands for.
     *
     * @throws Rejected when the token is not valid, or names no tenant of the platform (401)
     * @throws org.springframework.security.oauth2.jwt.JwtException other than {@link BadJwtException}, or
     *         {@link org.springframework.security.oauth2.jwt.JwtDecoderInitializationException}, when the issuer's
     *         keys cannot be had (503); {@link org.springframework.dao.DataAccessException} from the tenant lookup
     */
    CallerIdentity authenticate(String token) {
        Jwt jwt;
        try {
            jwt = decoder.decode(token);
        } catch (BadJwtException e) {
            throw new Rejected(reason(e));
        }
        Object tenant = jwt.getClaims().get(settings.tenantClaim());
        if (!(tenant instanceof String name) || name.isBlank()) {
            throw new Rejected("the token has no '" + settings.tenantClaim() + "' claim naming a tenant");
        }
        if (!TENANT_NAME.matcher(name).matches()) {
            throw new Rejected("the token's '" + settings.tenantClaim() + "' claim is not a tenant name");
        }
        UUID id = tenantId(name).orElseThrow(() -> new Rejected("the token's tenant " + name + " does not exist"));
        boolean admin = roles(jwt.getClaims().get(settings.rolesClaim())).contains(settings.adminRole());
        return new CallerIdentity(id, name, admin ? CallerIdentity.Role.ADMIN : CallerIdentity.Role.USER);
    }

    /** A list claim, or a string of roles separated by spaces or commas ({@code scope}). */
    static List<String> roles(Object claim) {
        if (claim instanceof Collection<?> values) {
            return values.stream().map(String::valueOf).toList();
        }
        if (claim instanceof String text) {
            return Arrays.stream(text.split("[\\s,]+")).filter(s -> !s.isEmpty()).toList();
        }
        return List.of();
    }

    private Optional<UUID> tenantId(String name) {
        Instant now = clock.instant();
        Entry hit = tenantIds.get(name);
        if (hit != null && now.isBefore(hit.until())) {
            return hit.id();
        }
        Optional<UUID> id = tenants.byName(name).map(t -> t.id());
        if (tenantIds.size() >= ApiKeys.MAX_ENTRIES) {
            tenantIds.clear();
        }
        tenantIds.put(name, new Entry(id, now.plus(ttl)));
        return id;
    }

    private static String reason(BadJwtException e) {
        if (e instanceof JwtValidationException invalid && !invalid.getErrors().isEmpty()) {
            return invalid.getErrors().stream().map(OAuth2Error::getDescription).filter(Objects::nonNull)
                    .collect(Collectors.joining("; "));
        }
        String message = e.getMessage() == null ? "not a valid token" : e.getMessage();
        return message.replace("An error occurred while attempting to decode the Jwt: ", "");
    }

    /** A token that does not stand for a caller; the message says why, for the 401's detail. */
    static final class Rejected extends RuntimeException {
        Rejected(String reason) {
            super(reason);
        }
    }

    private record Entry(Optional<UUID> id, Instant until) {
    }
}
