package io.fleetjobs.jobctl;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class Utf8PiecesTest {
    @Test
    void aCharacterCutBetweenTwoPiecesPrintsWholeWithTheSecond() {
        byte[] text = "a€b\n".getBytes(StandardCharsets.UTF_8); // € is three bytes
        Utf8Pieces pieces = new Utf8Pieces();
        assertThat(pieces.next(Arrays.copyOfRange(text, 0, 2))).isEqualTo("a");
        assertThat(pieces.next(Arrays.copyOfRange(text, 2, 3))).isEmpty();
        assertThat(pieces.next(Arrays.copyOfRange(text, 3, text.length))).isEqualTo("€b\n");
    }
}
