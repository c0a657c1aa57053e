package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AgentProtocol.JoinRequest;
import io.fleetjobs.model.agent.AgentProtocol.Lease;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The fields the sandbox added to the agent protocol are optional both ways: old peers neither send nor need them. */
class ProtocolCompatibilityTest {
    final JsonMapper json = JsonMapper.builder().build();

    @Test
    void aLeaseWithoutResourcesReadsAsNoLimitsAndOneWithThemKeepsThem() {
        UUID id = UUID.randomUUID();
        Lease old = json.readValue("{\"jobId\":\"" + id + "\",\"attempt\":1,\"epoch\":2,\"command\":[\"true\"],"
                + "\"env\":{},\"timeoutSeconds\":null}", Lease.class);
        assertThat(old.cpuMillis()).isNull();
        assertThat(old.memoryMb()).isNull();

        Lease lease = new Lease(id, 1, 2, List.of("true"), Map.of(), 60, 500L, 512L);
        assertThat(json.readValue(json.writeValueAsString(lease), Lease.class)).isEqualTo(lease);
    }

    @Test
    void theJoinSaysTheIsolationAndAJoinWithoutItStillReads() {
        JoinRequest join = new JoinRequest("m-1", "r", Map.of(), 2000, 4096, 0, null, "sandbox");
        assertThat(json.writeValueAsString(join)).contains("\"isolation\":\"sandbox\"");
        JoinRequest old = json.readValue("{\"machineId\":\"m-1\",\"region\":\"r\",\"labels\":{},\"cpuMillis\":2000,"
                + "\"memoryMb\":4096,\"gpuCount\":0,\"gpuType\":null}", JoinRequest.class);
        assertThat(old.isolation()).isNull();
        assertThat(old.machineId()).isEqualTo("m-1");
        assertThat(old.credential()).isNull();
    }

    @Test
    void theJoinMayPresentTheKeptCredentialWhichNoLogShows() {
        JoinRequest join = new JoinRequest("m-1", "r", Map.of(), 2000, 4096, 0, null, "sandbox", List.of(), "kept-secret");
        JoinRequest read = json.readValue(json.writeValueAsString(join), JoinRequest.class);
        assertThat(read).isEqualTo(join);
        assertThat(read.credential()).isEqualTo("kept-secret");
        assertThat(join.toString()).doesNotContain("kept-secret");
        assertThat(join.withoutCredential().credential()).isNull();
        assertThat(new JoinRequest("m-1", "r", Map.of(), 2000, 4096, 0, null, "sandbox", List.of()).credential()).isNull();
    }

    @Test
    void liveLogsFieldsAreOptionalBothWays() {
        var old = json.readValue("{\"leaseTtlMs\":1000,\"start\":[],\"kill\":[],\"ack\":[],\"heartbeatIntervalMs\":null}",
                AgentProtocol.HeartbeatResponse.class);
        assertThat(old.follow()).as("an older scheduler says nothing of follows: the agent keeps what it ships").isNull();
        var beat = json.readValue("{\"machineId\":\"m-1\",\"incarnation\":1,\"attempts\":[],\"waitMs\":0}",
                AgentProtocol.Heartbeat.class);
        assertThat(beat.following()).as("an older agent ships nothing").isNull();
        var follow = new AgentProtocol.LogFollow(UUID.randomUUID(), 1, "stdout", -65536);
        var answer = new AgentProtocol.HeartbeatResponse(1000, List.of(), List.of(), List.of(),
                2000L, List.of(follow));
        assertThat(json.readValue(json.writeValueAsString(answer),
                AgentProtocol.HeartbeatResponse.class).follow()).containsExactly(follow);
    }
}
