package io.fleetjobs.jobservice.api;

import io.fleetjobs.store.JobLogContext;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Puts the job a request names ({@code /api/v1/jobs/{id}/...}) into the logging context for the whole
 * request, so that whatever is logged while serving it (a cancel, an error) carries the job's id.
 */
@Component
class JobRequestLogContext extends OncePerRequestFilter {
    private static final Pattern JOB_PATH = Pattern.compile("^/api/v1/jobs/([0-9a-fA-F-]{36})(?:/.*)?$");

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        UUID jobId = jobId(request.getRequestURI());
        if (jobId == null) {
            chain.doFilter(request, response);
            return;
        }
        try (var ignored = JobLogContext.of(jobId)) {
            chain.doFilter(request, response);
        }
    }

    static UUID jobId(String path) {
        Matcher m = path == null ? null : JOB_PATH.matcher(path);
        if (m == null || !m.matches()) {
            return null;
        }
        try {
            return UUID.fromString(m.group(1));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
