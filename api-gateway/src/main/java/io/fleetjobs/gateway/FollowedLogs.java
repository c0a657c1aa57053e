package io.fleetjobs.gateway;

import java.net.URI;
import java.time.Duration;
import java.util.function.BiFunction;
import java.util.regex.Pattern;
import org.apache.hc.client5.http.config.Configurable;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.Timeout;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;

/**
 * Followed logs ({@code GET /api/v1/jobs/{id}/attempts/{n}/logs?follow=true}) are read from job-service with a read
 * timeout of their own. Read as {@code text/plain} they carry the job's bytes and nothing else, so a job that prints
 * nothing for longer than the client read timeout (60 s) had its follow cut by the gateway while it ran on; every
 * other call keeps the read timeout that finds a service that stopped answering. job-service ends a follow itself
 * once its attempt ended (and 10 s later when no agent sends the end), so its silence is the job's.
 */
final class FollowedLogs implements BiFunction<HttpMethod, URI, HttpContext> {
    private static final Pattern LOGS = Pattern.compile("/api/v1/jobs/[^/]+/attempts/[^/]+/logs");
    private static final Pattern FOLLOW = Pattern.compile("(^|&)follow=true(&|$)");

    private final Timeout silence;
    private final HttpComponentsClientHttpRequestFactory factory;

    /** @param silence how long a followed log may be silent; the factory's client gives every other setting */
    FollowedLogs(Duration silence, HttpComponentsClientHttpRequestFactory factory) {
        this.silence = Timeout.of(silence);
        this.factory = factory;
    }

    static boolean isFollow(URI uri) {
        return uri.getRawQuery() != null && LOGS.matcher(uri.getRawPath()).matches()
                && FOLLOW.matcher(uri.getRawQuery()).find();
    }

    /** The context of a followed log's request (the client's settings, a longer read); null for any other. */
    @Override
    public HttpContext apply(HttpMethod method, URI uri) {
        if (method != HttpMethod.GET || !isFollow(uri)) {
            return null;
        }
        RequestConfig client = factory.getHttpClient() instanceof Configurable configurable
                && configurable.getConfig() != null ? configurable.getConfig() : RequestConfig.DEFAULT;
        HttpClientContext context = HttpClientContext.create();
        context.setRequestConfig(RequestConfig.copy(client).setResponseTimeout(silence).build());
        return context;
    }
}
