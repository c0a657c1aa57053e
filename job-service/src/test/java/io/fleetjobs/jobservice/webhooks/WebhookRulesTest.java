package io.fleetjobs.jobservice.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The webhooks' pure rules: which destinations, which events, how signed, when tried again. */
class WebhookRulesTest {
    @ParameterizedTest(name = "{0} internal: {1}")
    @CsvSource({
            "127.0.0.1, true", "127.8.9.10, true", "10.1.2.3, true", "172.16.0.1, true", "172.31.255.255, true",
            "192.168.1.1, true", "169.254.169.254, true", "0.0.0.0, true", "100.64.0.1, true", "100.127.255.1, true",
            "198.18.0.1, true", "224.0.0.1, true", "255.255.255.255, true",
            "::1, true", "fe80::1, true", "fd00::1, true", "fc00::2, true", "::ffff:127.0.0.1, true", "::ffff:10.0.0.1, true",
            // an IPv4 address inside IPv6 that a translator or tunnel of the operator's network would reach
            "64:ff9b::7f00:1, true", "64:ff9b::a9fe:a9fe, true", "64:ff9b:1::808:808, true", "2002:7f00:1::, true",
            "2002:a00:1::1, true", "2001:0:4136:e378:8000:63bf:3fff:fdd2, true", "100::1, true",
            "64:ff9b::808:808, false", "2002:808:808::1, false",
            "8.8.8.8, false", "172.32.0.1, false", "100.128.0.1, false", "93.184.216.34, false", "2001:4860:4860::8888, false",
            "::ffff:8.8.8.8, false"})
    void internalAddressesAreTold(String address, boolean internal) throws Exception {
        assertThat(Destinations.isInternal(InetAddress.getByName(address))).isEqualTo(internal);
    }

    @Test
    void oneInternalAddressOfAHostIsEnoughToRefuseItUnlessAllowed() throws Exception {
        List<InetAddress> mixed = List.of(InetAddress.getByName("8.8.8.8"), InetAddress.getByName("10.0.0.1"));
        assertThat(Destinations.addressProblem(mixed, false)).get().asString().contains("10.0.0.1");
        assertThat(Destinations.addressProblem(mixed, true)).isEmpty();
        assertThat(Destinations.addressProblem(List.of(InetAddress.getByName("8.8.8.8")), false)).isEmpty();
        assertThat(Destinations.addressProblem(List.of(), true)).isPresent();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "https://hooks.example.com/fleet|", "http://hooks.example.com:8080/x?y=1|",
            "ftp://hooks.example.com/|must be an http or https URL", "hooks.example.com/x|must be an http or https URL",
            "https://user:pw@hooks.example.com/|must not carry a user or password", "http:///nohost|must name a host",
            "http://exa mple.com/|is not a URL"})
    void theFormOfAUrlIsChecked(String url, String problem) {
        var found = Destinations.formProblem(url);
        if (problem == null) {
            assertThat(found).isEmpty();
        } else {
            assertThat(found).get().asString().startsWith(problem);
        }
        assertThat(Destinations.formProblem("https://e.com/" + "a".repeat(Destinations.MAX_URL_LENGTH))).isPresent();
        assertThat(Destinations.formProblem(null)).contains("is required");
    }

    @Test
    void aSignatureVerifiesOnlyWithItsSecretAndItsBody() {
        String secret = Signature.newSecret();
        assertThat(secret).startsWith("whsec_").hasSize(6 + 64);
        String header = Signature.sign(secret, 1_700_000_000L, "{\"a\":1}");
        assertThat(header).matches("t=1700000000,v1=[0-9a-f]{64}");
        assertThat(Signature.verify(secret, header, "{\"a\":1}")).isTrue();
        assertThat(Signature.verify(secret, header, "{\"a\":2}")).isFalse();
        assertThat(Signature.verify(Signature.newSecret(), header, "{\"a\":1}")).isFalse();
        assertThat(Signature.verify(secret, header.replace("t=1700000000", "t=1700000001"), "{\"a\":1}"))
                .as("the time is signed too").isFalse();
        assertThat(Signature.verify(secret, "v1=zz", "{}")).isFalse();
        assertThat(Signature.verify(secret, null, "{}")).isFalse();
    }

    @Test
    void retriesDoubleUpToTheirMostAndEndAfterTheLastTry() {
        Retries r = new Retries(Duration.ofSeconds(1), Duration.ofSeconds(10), 6);
        assertThat(List.of(r.after(1), r.after(2), r.after(3), r.after(4), r.after(5)))
                .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(8),
                        Duration.ofSeconds(10));
        assertThat(r.after(6)).as("six tries made: given up").isNull();
        assertThat(Retries.DEFAULT.after(15)).isEqualTo(Duration.ofMinutes(10));
        assertThat(Retries.DEFAULT.after(16)).isNull();
    }

    @Test
    void aWebhookIsToldOfWhatItAskedForAndNothingOlderThanItself() {
        Instant since = Instant.parse("2026-12-01T10:00:00Z");
        JobEvent queued = event(JobState.SUBMITTED, JobState.QUEUED, since.plusSeconds(1));
        JobEvent done = event(JobState.RUNNING, JobState.SUCCEEDED, since.plusSeconds(2));
        JobEvent old = event(JobState.RUNNING, JobState.FAILED, since.minusSeconds(1));
        assertThat(WebhookEvents.wants(WebhookEvents.TERMINAL, since, queued)).isFalse();
        assertThat(WebhookEvents.wants(WebhookEvents.TERMINAL, since, done)).isTrue();
        assertThat(WebhookEvents.wants(WebhookEvents.ALL, since, queued)).isTrue();
        assertThat(WebhookEvents.wants(WebhookEvents.ALL, since, old)).isFalse();
        assertThat(WebhookEvents.wants(WebhookEvents.TERMINAL, since, old)).isFalse();
    }

    private static JobEvent event(JobState from, JobState to, Instant at) {
        return new JobEvent(UUID.randomUUID(), JobEvent.SCHEMA_VERSION, JobEventType.STATE_CHANGED, UUID.randomUUID(),
                UUID.randomUUID(), 2, at, from, to, "because", Map.of());
    }
}
