package io.fleetjobs.scheduler.service.agent;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * At most {@code limit} heartbeats in progress at once, held ones included: each costs the server's buffers for its
 * request and response (about 75 KiB in Tomcat) for as long as it is in progress, and a starved scheduler that let every
 * agent in ran out of heap (W4 at 10,000 machines, docs/benchmarks.md). One past the limit is heard from its
 * {@code Authorization} header alone, before its body is read: a machine known in memory is recorded alive ({@link
 * AgentService#heardWhileFull}), and the call is answered 503 with {@code Retry-After} at once, so that a scheduler
 * short of room never makes its fleet look silent, and never holds more than its limit.
 */
public final class HeartbeatAdmission implements Filter {
    private static final byte[] FULL = ("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,"
            + "\"detail\":\"the scheduler has as many heartbeats in progress as it takes; this one was heard (the machine "
            + "is alive) but is not answered; send the next one\"}").getBytes(StandardCharsets.UTF_8);
    private final AtomicInteger inProgress = new AtomicInteger();
    private final int limit;
    private final AgentService agents;

    public HeartbeatAdmission(int limit, AgentService agents) {
        if (limit < 1) {
            throw new IllegalArgumentException("jobs.agent.max-heartbeats-in-progress must be at least 1: " + limit);
        }
        this.limit = limit;
        this.agents = agents;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (inProgress.incrementAndGet() > limit) {
            inProgress.decrementAndGet();
            agents.heardWhileFull(AgentCalls.bearer(((HttpServletRequest) request).getHeader("Authorization")));
            HttpServletResponse full = (HttpServletResponse) response;
            full.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
            full.setHeader("Retry-After", "1");
            full.setContentType("application/problem+json");
            full.setContentLength(FULL.length);
            full.getOutputStream().write(FULL);
            return;
        }
        try {
            chain.doFilter(request, response);
        } finally {
            inProgress.decrementAndGet();
        }
    }

    /** Heartbeats in progress now. */
    int inProgress() {
        return inProgress.get();
    }
}
