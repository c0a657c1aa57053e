package io.fleetjobs.jobservice.api;

import io.fleetjobs.store.Principal;
import io.fleetjobs.store.TenantStore;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Resolves the caller of {@code /api/**} from {@code Authorization: Bearer <api key>}; no key or an
 * unknown or revoked key is 401. The principal is a request attribute that controllers take with
 * {@code @RequestAttribute}. No header names a tenant: identity comes only from a key the platform issued.
 */
@Component
class Authentication extends OncePerRequestFilter {
    static final String PRINCIPAL = "io.fleetjobs.principal";

    private final TenantStore tenants;

    Authentication(TenantStore tenants) {
        this.tenants = tenants;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !request.getRequestURI().startsWith("/api/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader("Authorization");
        Optional<Principal> principal = Optional.empty();
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            String key = header.substring(7).trim();
            if (!key.isEmpty() && key.length() <= 256) {
                principal = tenants.authenticate(key);
            }
        }
        if (principal.isEmpty()) {
            response.setStatus(HttpStatus.UNAUTHORIZED.value());
            response.setHeader("WWW-Authenticate", "Bearer");
            response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
            response.getWriter().write("{\"type\":\"about:blank\",\"title\":\"Unauthorized\",\"status\":401,"
                    + "\"detail\":\"a valid API key is required (Authorization: Bearer <key>)\"}");
            return;
        }
        request.setAttribute(PRINCIPAL, principal.get());
        chain.doFilter(request, response);
    }
}
