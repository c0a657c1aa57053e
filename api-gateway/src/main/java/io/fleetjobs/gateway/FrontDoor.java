package io.fleetjobs.gateway;

import io.fleetjobs.support.BufferedBody;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.support.ApiPaths;
import io.fleetjobs.support.SignedIdentity;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.security.oauth2.jwt.JwtDecoderInitializationException;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * What every request meets before it is routed, in this order:
 *
 * <pre>
 *   any path    strip Authorization and any X-Jobs-Identity* the client sent
 *   /api/**     the body limit (1 MiB)                over it, declared or chunked -> 413
 *               keys can be checked yet               the platform is starting -> 503 with Retry-After
 *               Authorization: Bearer &lt;api key&gt;      no or unknown or revoked key  -> 401
 *                                                     too many unknown keys from one address -> 429
 *               or Bearer &lt;JWT&gt; where an issuer is    bad signature, expired, another issuer or
 *               configured (jobs.gateway.jwt)         audience, no known tenant in it       -> 401
 *               admin paths need the ADMIN role       /api/v1/admin/**, /api/v1/machines/** -> 403
 *               a write's answer is JSON              POST, PUT, PATCH whose Accept takes no JSON -> 406,
 *                                                     not forwarded (the service would act, then refuse to answer)
 *               a live stream is answered to GET      HEAD with follow=true -> 405, not forwarded
 *               the tenant's rate limit               over it -> 429 with Retry-After
 *               a live stream (GET, follow=true)      the tenant has 64 open here -> 429 with Retry-After
 *               sign the caller's identity for this request to the service behind (once, within 10 s)
 * </pre>
 *
 * Everything else (health, the OpenAPI document, Swagger UI) is public. Paths are judged as the container
 * normalised them, the same way the services judge them.
 */
final class FrontDoor extends OncePerRequestFilter {
    private static final Logger log = LoggerFactory.getLogger(FrontDoor.class);

    /** The longest API key looked up; a longer token can only be a JWT. */
    static final int MAX_KEY_LENGTH = 256;
    private static final int MAX_TOKEN_LENGTH = 16 * 1024;

    private final KeyStoreReadiness keyStore;
    private final ApiKeys keys;
    private final JwtCallers jwts;
    private final TenantRateLimits limits;
    private final TenantStreams streams;
    private final SignedIdentity identities;
    private final long maxBodyBytes;
    private final Counter rateLimited;

    /** {@code jwts} is null where no issuer is configured: every token is then an API key. */
    FrontDoor(KeyStoreReadiness keyStore, ApiKeys keys, JwtCallers jwts, TenantRateLimits limits,
            TenantStreams streams, SignedIdentity identities, long maxBodyBytes, MeterRegistry meters) {
        this.keyStore = keyStore;
        this.keys = keys;
        this.jwts = jwts;
        this.limits = limits;
        this.streams = streams;
        this.identities = identities;
        this.maxBodyBytes = maxBodyBytes;
        this.rateLimited = Counter.builder("gateway_rate_limited").description("requests refused with 429").register(meters);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        if (!path.startsWith("/api")) {
            chain.doFilter(new ForwardedRequest(request, null, null), response);
            return;
        }
        // the body's size first: before anything is parsed or looked up for a caller not yet known
        byte[] body = null;
        long declared = request.getContentLengthLong();
        if (declared > maxBodyBytes) {
            tooLarge(response);
            return;
        }
        if (declared < 0 && request.getHeader("Transfer-Encoding") != null) {
            body = BufferedBody.readAtMost(request.getInputStream(), maxBodyBytes + 1);
            if (body.length > maxBodyBytes) {
                tooLarge(response);
                return;
            }
        }
        if (!keyStore.ready()) {
            // not a 401: the key may be fine, the store cannot say yet (JWTs too: their tenant is looked up there)
            response.setHeader("Retry-After", "2");
            problem(response, 503, "Service Unavailable",
                    "the platform is starting: API keys cannot be checked yet; try again shortly");
            return;
        }
        Optional<CallerIdentity> caller;
        try {
            String token = bearer(request.getHeader("Authorization"));
            if (token != null && jwts != null && JwtCallers.looksLikeJwt(token)) {
                caller = Optional.of(jwts.authenticate(token));
            } else {
                caller = token == null || token.length() > MAX_KEY_LENGTH ? Optional.empty() : keys.authenticate(token, request.getRemoteAddr());
            }
        } catch (JwtCallers.Rejected e) {
            response.setHeader("WWW-Authenticate", "Bearer error=\"invalid_token\"");
            problem(response, 401, "Unauthorized", "invalid bearer token: " + e.getMessage());
            return;
        } catch (JwtException | JwtDecoderInitializationException e) {
            log.warn("cannot check a JWT against its issuer: {}", e.getMessage());
            response.setHeader("Retry-After", "2");
            problem(response, 503, "Service Unavailable", "the token issuer's keys cannot be fetched; try again shortly");
            return;
        } catch (ApiKeys.TooManyLookups e) {
            rateLimited.increment();
            response.setHeader("Retry-After", Long.toString(e.wait.toSeconds()));
            problem(response, 429, "Too Many Requests", "too many unknown API keys from this address; retry after "
                    + e.wait.toSeconds() + " s");
            return;
        } catch (DataAccessException e) {
            log.warn("cannot look up an API key or tenant: {}", e.getMessage());
            response.setHeader("Retry-After", "2");
            problem(response, 503, "Service Unavailable", "the key store is unreachable; try again shortly");
            return;
        }
        if (caller.isEmpty()) {
            response.setHeader("WWW-Authenticate", "Bearer");
            problem(response, 401, "Unauthorized", "a valid API key is required (Authorization: Bearer <key>)");
            return;
        }
        if (adminOnly(path) && !caller.get().isAdmin()) {
            problem(response, 403, "Forbidden", "admin role required");
            return;
        }
        if (refusesJson(request)) {
            problem(response, 406, "Not Acceptable", "the answer to " + request.getMethod() + " " + path
                    + " is JSON (application/json, or application/problem+json for an error), which this request's"
                    + " Accept header does not take; nothing was done");
            return;
        }
        if (isStreamHead(request)) {
            response.setHeader("Allow", "GET");
            problem(response, 405, "Method Not Allowed", "a live stream (follow=true) is answered to GET only;"
                    + " nothing was opened");
            return;
        }
        Duration wait = limits.acquire(caller.get());
        if (!wait.isZero()) {
            rateLimited.increment();
            response.setHeader("Retry-After", Long.toString(wait.toSeconds()));
            problem(response, 429, "Too Many Requests", "tenant " + caller.get().tenantName()
                    + " is over its rate limit; retry after " + wait.toSeconds() + " s");
            return;
        }
        SignedIdentity.Target target = SignedIdentity.Target.of(ApiPaths.serviceFor(path), request.getMethod(), path,
                request.getQueryString());
        ForwardedRequest forwarded = new ForwardedRequest(request, identities.sign(caller.get(), target), body);
        if (!isStream(request)) {
            chain.doFilter(forwarded, response);
            return;
        }
        Optional<Bulkhead> place = streams.open(caller.get());
        if (place.isEmpty()) {
            rateLimited.increment();
            response.setHeader("Retry-After", "5");
            problem(response, 429, "Too Many Requests", "tenant " + caller.get().tenantName() + " has "
                    + streams.perTenant() + " live streams open through this gateway; close one or try again later");
            return;
        }
        try {
            chain.doFilter(forwarded, response);
        } finally {
            place.get().onComplete();
        }
    }

    /**
     * HEAD on a live stream: the service would open the stream and write into an answer whose body the server drops,
     * so no write ever fails and the stream never learns that its client left; it would hold a place of the tenant's
     * streams there and the gateway's pooled connection it came on, for good (and took no place here).
     */
    static boolean isStreamHead(HttpServletRequest request) {
        return "HEAD".equals(request.getMethod()) && "true".equalsIgnoreCase(request.getParameter("follow"));
    }

    /** A live stream: it holds its connection for as long as the client follows. */
    private static boolean isStream(HttpServletRequest request) {
        return "GET".equals(request.getMethod()) && "true".equalsIgnoreCase(request.getParameter("follow"));
    }

    /**
     * A write (POST, PUT, PATCH) whose {@code Accept} names no type that JSON answers: the service behind would do what
     * it asks and then answer 406, and a client that retries on that error would do it twice. No {@code Accept}, or one
     * that does not parse, is left to the service.
     */
    static boolean refusesJson(HttpServletRequest request) {
        String method = request.getMethod();
        if (!"POST".equals(method) && !"PUT".equals(method) && !"PATCH".equals(method)) {
            return false;
        }
        List<String> accept = Collections.list(request.getHeaders("Accept"));
        if (accept.isEmpty()) {
            return false;
        }
        List<MediaType> types;
        try {
            types = MediaType.parseMediaTypes(accept);
        } catch (InvalidMediaTypeException e) {
            return false;
        }
        return types.stream().filter(t -> t.getQualityValue() > 0).noneMatch(t ->
                t.isCompatibleWith(MediaType.APPLICATION_JSON) || t.isCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON));
    }

    static boolean adminOnly(String path) {
        return under(path, "/api/v1/admin") || under(path, "/api/v1/machines");
    }

    private static boolean under(String path, String prefix) {
        return path.equals(prefix) || path.startsWith(prefix + "/");
    }

    private static String bearer(String header) {
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String token = header.substring(7).trim();
        return token.isEmpty() || token.length() > MAX_TOKEN_LENGTH ? null : token;
    }


    private void tooLarge(HttpServletResponse response) throws IOException {
        response.setHeader("Connection", "close"); // the rest of the body is not read
        problem(response, 413, "Content Too Large", "request bodies are limited to " + maxBodyBytes + " bytes");
    }

    private static void problem(HttpServletResponse response, int status, String title, String detail) throws IOException {
        response.setStatus(status);
        response.setContentType("application/problem+json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write("{\"type\":\"about:blank\",\"title\":\"" + title + "\",\"status\":" + status
                + ",\"detail\":\"" + detail.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
    }
}
