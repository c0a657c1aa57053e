package io.fleetjobs.jobservice.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A follow is Server-Sent Events, the contract's default, unless the client asks for text/plain. */
class LogFollowAcceptTest {
    @Test
    void plainTextOnlyWhenAskedForAboveEvents() {
        assertThat(AttemptLogStreamController.wantsPlainText("text/plain")).isTrue();
        assertThat(AttemptLogStreamController.wantsPlainText("text/plain;charset=UTF-8, */*;q=0.1")).isTrue();
        assertThat(AttemptLogStreamController.wantsPlainText("text/event-stream;q=0.5, text/plain")).isTrue();

        assertThat(AttemptLogStreamController.wantsPlainText(null)).isFalse();
        assertThat(AttemptLogStreamController.wantsPlainText("*/*")).isFalse();
        assertThat(AttemptLogStreamController.wantsPlainText("text/event-stream")).isFalse();
        assertThat(AttemptLogStreamController.wantsPlainText("text/event-stream, text/plain")).isFalse();
        assertThat(AttemptLogStreamController.wantsPlainText("text/plain;q=0")).isFalse();
        assertThat(AttemptLogStreamController.wantsPlainText("not a media type;;")).isFalse();
    }
}
