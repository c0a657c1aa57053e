package io.fleetjobs.model.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LogTailTest {
    @Test
    void whatFitsIsKeptWholeAndNullStaysNull() {
        assertThat(LogTail.cap(null)).isNull();
        assertThat(LogTail.cap("")).isEmpty();
        String exactly = "x".repeat(LogTail.MAX_BYTES);
        assertThat(LogTail.cap(exactly)).isSameAs(exactly);
    }

    @Test
    void aLongerTailKeepsItsLastBytes() {
        String tail = "a".repeat(200_000) + "the error at the end";
        String capped = LogTail.cap(tail);
        assertThat(capped.getBytes(StandardCharsets.UTF_8)).hasSize(LogTail.MAX_BYTES);
        assertThat(capped).endsWith("the error at the end");
        assertThat(tail).endsWith(capped);
    }

    @Test
    void theCutStartsOnAWholeCharacter() {
        // "é" is two bytes: a cut after 5 bytes of "ééé" falls inside the first one
        assertThat(LogTail.cap("ééé", 5)).isEqualTo("éé");
        assertThat(LogTail.cap("a€€", 6)).isEqualTo("€€");
        assertThat(LogTail.cap("a€€", 5)).isEqualTo("€");
        String emoji = "😀".repeat(30_000); // 4 bytes each, 120,000 bytes
        String capped = LogTail.cap(emoji);
        assertThat(capped.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(LogTail.MAX_BYTES);
        assertThat(capped).isEqualTo("😀".repeat(LogTail.MAX_BYTES / 4));
    }
}
