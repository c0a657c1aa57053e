package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.agent.process.Egress;
import io.fleetjobs.agent.process.SandboxSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class IsolationPropertiesTest {
    @Test
    void unsetMeansTheDocumentedDefaults() {
        var none = none();
        assertThat(none.settings()).isEqualTo(SandboxSettings.DEFAULT);
        assertThat(SandboxSettings.DEFAULT.retention()).isEqualTo(Duration.ofHours(1));
        assertThat(SandboxSettings.DEFAULT.firstUid()).isEqualTo(61000);
        assertThat(SandboxSettings.DEFAULT.deviceDir()).isEqualTo(Path.of("/dev"));
    }

    @Test
    void eachSettingTakesItsUnit() {
        var set = new WorkerProperties.Isolation(false, 70000, 10, 64L, "fleetjobs/m-1", 32L, 20, 100, 1024L,
                Duration.ofSeconds(5), Duration.ofMinutes(10), Path.of("/srv/test-dev"), true);
        SandboxSettings s = set.settings();
        assertThat(s.sandbox()).isFalse();
        assertThat(s.tmpBytes()).isEqualTo(64L << 20);
        assertThat(s.workDirCapBytes()).isEqualTo(1024L << 20);
        assertThat(s.cgroupParent()).isEqualTo("fleetjobs/m-1");
        assertThat(s.retention()).isEqualTo(Duration.ofMinutes(10));
        assertThat(s.deviceDir()).isEqualTo(Path.of("/srv/test-dev"));
        assertThat(s.userNamespaces()).isTrue();
        assertThat(none().settings().userNamespaces()).as("denied unless allowed").isFalse();
    }

    @Test
    void attemptsMayNotReachTheSchedulerNorTheMetadataEndpointUnlessTheOperatorListsOtherPlaces() {
        assertThat(none().egressRules()).isTrue();
        assertThat(AgentConfig.egress(agentOf("http://127.0.0.1:9382", none()), Egress.Resolver.DNS)
                .denied()).map(Object::toString).containsExactly("127.0.0.1:9382", "169.254.169.254");

        var listed = new WorkerProperties.Isolation(null, null, null, null, null, null, null, null, null, null, null, null,
                null, false, List.of("10.0.0.0/8:5432", "*:9092"));
        assertThat(listed.egressRules()).isFalse();
        assertThat(AgentConfig.egress(agentOf("http://[::1]:8082", listed), Egress.Resolver.DNS)
                .denied()).map(Object::toString).containsExactly("[0:0:0:0:0:0:0:1]:8082", "10.0.0.0/8:5432", "*:9092");
    }

    @Test
    void theRulesHostNamesAreResolvedAgainEveryMinuteUnlessTold() {
        assertThat(none().egressRefresh()).isEqualTo(Duration.ofMinutes(1));
        var never = new WorkerProperties.Isolation(null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, Duration.ZERO);
        assertThat(never.egressRefresh()).isZero();
        Assertions.assertThatThrownBy(() -> new WorkerProperties.Isolation(null, null, null, null,
                        null, null, null, null, null, null, null, null, null, null, null, Duration.ofSeconds(-1)))
                .hasMessageContaining("egress-refresh");
    }

    private static WorkerProperties agentOf(String schedulerUrl, WorkerProperties.Isolation isolation) {
        return new WorkerProperties(schedulerUrl, "m-1", null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, isolation, null);
    }

    private static WorkerProperties.Isolation none() {
        return new WorkerProperties.Isolation(null, null, null, null, null, null, null, null, null, null, null, null,
                null);
    }
}
