package io.fleetjobs.support;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Admits to {@code /api/**} only callers whose identity the gateway signed ({@link SignedIdentity});
 * anything else (no headers, forged or expired ones, an API key sent straight to the service) is 401.
 * The verified caller goes into the request attribute {@link CallerIdentity#ATTRIBUTE}. Other paths
 * (health, the agent API, which has credentials of its own) pass untouched.
 *
 * <p>The path is judged as the container normalised it (servlet path plus path info: decoded, dot
 * segments and doubled slashes resolved), so no spelling of {@code /api} slips past.
 */
public final class IdentityFilter implements Filter {
    private final SignedIdentity identities;
    private final String service;

    /** @param service this service's name, which an identity must have been made for */
    public IdentityFilter(SignedIdentity identities, String service) {
        this.identities = identities;
        this.service = service;
    }

    /** The request an identity must have been signed for: this service, the method, the path and the query. */
    static SignedIdentity.Target target(String service, HttpServletRequest request) {
        return SignedIdentity.Target.of(service, request.getMethod(), normalisedPath(request), request.getQueryString());
    }

    static String normalisedPath(HttpServletRequest request) {
        return request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)
                || !isApi(request)) {
            chain.doFilter(req, res);
            return;
        }
        Optional<CallerIdentity> caller = identities.verify(request.getHeader(SignedIdentity.HEADER),
                request.getHeader(SignedIdentity.SIGNATURE_HEADER), target(service, request));
        if (caller.isEmpty()) {
            response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
            response.setContentType("application/problem+json");
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            response.getWriter().write("{\"type\":\"about:blank\",\"title\":\"Unauthorized\",\"status\":401,"
                    + "\"detail\":\"calls to this service come through the api-gateway\"}");
            return;
        }
        request.setAttribute(CallerIdentity.ATTRIBUTE, caller.get());
        chain.doFilter(req, res);
    }

    /** Whether the normalised path is {@code /api} or below it (or merely starts so: it is refused rather than risked). */
    static boolean isApi(HttpServletRequest request) {
        return normalisedPath(request).startsWith("/api");
    }
}
