package io.fleetjobs.model.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LogTailTest {
    @Test
    void whatFitsIsKeptWholeAndNullStaysNull() {
        assertThat(LogTail.stored(null)).isNull();
        assertThat(LogTail.stored("")).isEmpty();
        String exactly = "x".repeat(LogTail.MAX_BYTES);
        assertThat(LogTail.stored(exactly)).isSameAs(exactly);
    }

    @Test
    void aLongerTailKeepsItsLastBytes() {
        String tail = "a".repeat(200_000) + "the error at the end";
        String capped = LogTail.stored(tail);
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
        String capped = LogTail.stored(emoji);
        assertThat(capped.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(LogTail.MAX_BYTES);
        assertThat(capped).isEqualTo("😀".repeat(LogTail.MAX_BYTES / 4));
    }

    @Test
    void aNulByteIsStoredAsTheReplacementCharacterAndNothingElseChanges() {
        // PostgreSQL's text refuses U+0000: a job that printed one made its attempt's end unwritable
        assertThat(LogTail.stored("a\0b\0\nc")).isEqualTo("a\uFFFDb\uFFFD\nc");
        String clean = "no NUL here: é €";
        assertThat(LogTail.stored(clean)).isSameAs(clean);
        String longWithNul = "\0".repeat(100_000);
        String stored = LogTail.stored(longWithNul);
        assertThat(stored).doesNotContain("\0").startsWith("\uFFFD"); // each 3 bytes in UTF-8: still within the cap
        assertThat(stored.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(LogTail.MAX_BYTES);
    }
}
