package io.fleetjobs.agent;

import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
import io.fleetjobs.model.agent.AgentProtocol.HeartbeatResponse;
import io.fleetjobs.model.agent.AgentProtocol.JoinRequest;
import io.fleetjobs.model.agent.AgentProtocol.JoinResponse;
import java.net.http.HttpClient;
import java.time.Duration;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * The scheduler's agent API, over HTTP. A heartbeat gives up (connect and read together) before the lease it would
 * renew ends: {@link #heartbeatReadTimeout} is set from {@link HeartbeatTiming} once a join said the lease TTL.
 */
final class SchedulerClient {
    private static final Duration JOIN_READ_TIMEOUT = Duration.ofSeconds(60);
    /** The connect timeout of every call: a scheduler in the same network accepts within milliseconds. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
    private final RestClient.Builder builder;
    private final String schedulerUrl;
    private final HttpClient client;
    private volatile RestClient http;
    private final RestClient joinHttp;

    SchedulerClient(RestClient.Builder builder, String schedulerUrl, Duration readTimeout) {
        this(builder, schedulerUrl, readTimeout, HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build());
    }

    /** Over a given HTTP client: the fleet simulator shares one (one selector thread, one pool) among its machines. */
    SchedulerClient(RestClient.Builder builder, String schedulerUrl, Duration readTimeout, HttpClient client) {
        this.builder = builder;
        this.schedulerUrl = schedulerUrl;
        this.client = client;
        this.http = builder.clone().baseUrl(schedulerUrl).requestFactory(factory(client, readTimeout)).build();
        this.joinHttp = builder.clone().baseUrl(schedulerUrl)
                .requestFactory(factory(client, readTimeout.compareTo(JOIN_READ_TIMEOUT) > 0 ? readTimeout : JOIN_READ_TIMEOUT))
                .build();
    }

    /** How long a heartbeat waits for its answer from now on. */
    void heartbeatReadTimeout(Duration readTimeout) {
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
        return http.post().uri(AgentProtocol.HEARTBEAT_PATH).header("Authorization", "Bearer " + credential)
                .body(heartbeat).retrieve().body(HeartbeatResponse.class);
    }

    /** @return whether someone still follows the stream; a refused push (409) throws */
    AgentProtocol.LogPushResponse pushLogs(String credential, AgentProtocol.LogPush push) {
        return http.post().uri(AgentProtocol.LOGS_PATH).header("Authorization", "Bearer " + credential)
                .body(push).retrieve().body(AgentProtocol.LogPushResponse.class);
    }
}
