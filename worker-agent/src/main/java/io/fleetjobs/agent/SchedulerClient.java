package io.fleetjobs.agent;

import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
import io.fleetjobs.model.agent.AgentProtocol.HeartbeatResponse;
import io.fleetjobs.model.agent.AgentProtocol.JoinRequest;
import io.fleetjobs.model.agent.AgentProtocol.JoinResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The scheduler's agent API, over HTTP. A heartbeat gives up (connect and read together) before the lease it would
 * renew ends: {@link #heartbeatReadTimeout} is set from {@link HeartbeatTiming} once a join said the lease TTL.
 *
 * <p>The heartbeat, an agent's one call a second, goes over the JDK's HTTP client directly, its JSON written to and
 * read from bytes: through {@code RestClient}, each request's body was written on a thread of its own (Spring's
 * adapter streams it through a publisher), a fifth of the fleet simulator's CPU in W1. Its errors are {@code
 * RestClient}'s all the same ({@link HttpClientErrorException}, {@link HttpServerErrorException}, {@link
 * ResourceAccessException}), so that callers handle every call alike.
 */
final class SchedulerClient {
    private static final Duration JOIN_READ_TIMEOUT = Duration.ofSeconds(60);
    /** Unknown properties ignored: a newer scheduler may answer more than this agent knows. */
    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    /** The connect timeout of every call: a scheduler in the same network accepts within milliseconds. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
    private final RestClient.Builder builder;
    private final String schedulerUrl;
    private final HttpClient client;
    private volatile RestClient http;
    private volatile Duration readTimeout;
    private final URI heartbeatUri;
    private final RestClient joinHttp;

    SchedulerClient(RestClient.Builder builder, String schedulerUrl, Duration readTimeout) {
        this(builder, schedulerUrl, readTimeout, HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build());
    }

    /** Over a given HTTP client: the fleet simulator shares one (one selector thread, one pool) among its machines. */
    SchedulerClient(RestClient.Builder builder, String schedulerUrl, Duration readTimeout, HttpClient client) {
        this.builder = builder;
        this.schedulerUrl = schedulerUrl;
        this.client = client;
        this.readTimeout = readTimeout;
        this.heartbeatUri = URI.create(schedulerUrl.replaceAll("/+$", "") + AgentProtocol.HEARTBEAT_PATH);
        this.http = builder.clone().baseUrl(schedulerUrl).requestFactory(factory(client, readTimeout)).build();
        this.joinHttp = builder.clone().baseUrl(schedulerUrl)
                .requestFactory(factory(client, readTimeout.compareTo(JOIN_READ_TIMEOUT) > 0 ? readTimeout : JOIN_READ_TIMEOUT))
                .build();
    }

    /** How long a heartbeat waits for its answer from now on. */
    void heartbeatReadTimeout(Duration readTimeout) {
        this.readTimeout = readTimeout;
        this.http = builder.clone().baseUrl(schedulerUrl).requestFactory(factory(client, readTimeout)).build();
    }

    private static JdkClientHttpRequestFactory factory(HttpClient client, Duration readTimeout) {
        JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(client);
        factory.setReadTimeout(readTimeout);
        return factory;
    }

    /**
     * A join waits for its answer longer than a heartbeat: a join given up on while the scheduler commits it
     * and then sent again makes a second incarnation, which ends whatever the first was given meanwhile.
     */
    JoinResponse join(String joinToken, JoinRequest request) {
        return joinHttp.post().uri(AgentProtocol.JOIN_PATH).header("Authorization", "Bearer " + joinToken)
                .body(request).retrieve().body(JoinResponse.class);
    }

    HeartbeatResponse heartbeat(String credential, Heartbeat heartbeat) {
        HttpRequest request = HttpRequest.newBuilder(heartbeatUri).timeout(readTimeout)
                .header("Authorization", "Bearer " + credential).header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(heartbeat))).build();
        HttpResponse<byte[]> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new ResourceAccessException("I/O error on POST request for \"" + heartbeatUri + "\": " + e.getMessage(),
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ResourceAccessException("interrupted on POST request for \"" + heartbeatUri + "\"");
        }
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            return JSON.readValue(response.body(), HeartbeatResponse.class);
        }
        HttpHeaders headers = new HttpHeaders();
        response.headers().map().forEach(headers::addAll);
        HttpStatusCode code = HttpStatusCode.valueOf(status);
        String text = code instanceof HttpStatus known ? known.getReasonPhrase() : "";
        String message = status + " " + text + ": \"" + new String(response.body(), StandardCharsets.UTF_8) + "\"";
        if (status >= 400 && status < 500) {
            throw HttpClientErrorException.create(message, code, text, headers, response.body(), StandardCharsets.UTF_8);
        }
        throw HttpServerErrorException.create(message, code, text, headers, response.body(), StandardCharsets.UTF_8);
    }

    /** @return whether someone still follows the stream; a refused push (409) throws */
    AgentProtocol.LogPushResponse pushLogs(String credential, AgentProtocol.LogPush push) {
        return http.post().uri(AgentProtocol.LOGS_PATH).header("Authorization", "Bearer " + credential)
                .body(push).retrieve().body(AgentProtocol.LogPushResponse.class);
    }
}
