package io.fleetjobs.agent.process;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TailBufferTest {
    static TailBuffer fed(int capacity, String... chunks) {
        TailBuffer tail = new TailBuffer(capacity);
        for (String chunk : chunks) {
            byte[] bytes = chunk.getBytes(UTF_8);
            tail.append(bytes, 0, bytes.length);
        }
        return tail;
    }

    @ParameterizedTest(name = "capacity {0}: {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
            "8 | abc             | abc",
            "8 | abc,def         | abcdef",
            "8 | abcdef,ghij     | cdefghij",
            "8 | abcdefghijkl    | efghijkl",
            "8 | ab,cdefghijklmn | ghijklmn",
            "3 | a,b,c,d,e       | cde",
            "1 | abc,d           | d",
    })
    void keepsTheLastBytesAcrossChunksAndWrapArounds(int capacity, String chunks, String expected) {
        assertThat(fed(capacity, chunks.split(",")).text()).isEqualTo(expected);
    }

    @Test
    void aZeroCapacityKeepsNothing() {
        assertThat(fed(0, "abc").text()).isEmpty();
    }

    @Test
    void aCharacterCutByTheWindowIsLeftOutNotReplaced() {
        // "é" is two bytes, "✓" three: a window of 4 over "aé✓" starts in the middle of "é"
        assertThat(fed(4, "aé✓").text()).isEqualTo("✓");
        assertThat(fed(5, "aé✓").text()).isEqualTo("é✓");
    }

    @Test
    void aCharacterNotYetCompleteIsLeftOutUntilItIs() {
        byte[] check = "✓".getBytes(UTF_8);
        TailBuffer tail = fed(16, "ok ");
        tail.append(check, 0, 2);
        assertThat(tail.text()).isEqualTo("ok ");
        tail.append(check, 2, 1);
        assertThat(tail.text()).isEqualTo("ok ✓");
    }

    @Test
    void invalidBytesThatNoWindowCutAreShownAsReplacements() {
        TailBuffer tail = new TailBuffer(8);
        tail.append(new byte[] {(byte) 0x80, 'x'}, 0, 2);
        assertThat(tail.text()).isEqualTo("\uFFFDx");
    }

    @org.junit.jupiter.api.Test
    void itHoldsWhatWasWrittenNotItsCapacityUntilFullAndThenKeepsTheLastBytes() {
        TailBuffer tail = new TailBuffer(64 * 1024);
        assertThat(tail.retained()).as("a quiet job's tail costs nothing").isZero();
        tail.append("hello\n".getBytes(StandardCharsets.UTF_8), 0, 6);
        assertThat(tail.retained()).isLessThanOrEqualTo(1024);
        assertThat(tail.text()).isEqualTo("hello\n");

        StringBuilder all = new StringBuilder("hello\n");
        for (int i = 0; i < 20_000; i++) {
            String line = i + "\n";
            tail.append(line.getBytes(StandardCharsets.UTF_8), 0, line.length());
            all.append(line);
        }
        assertThat(tail.retained()).isEqualTo(64 * 1024);
        assertThat(tail.text()).isEqualTo(all.substring(all.length() - 64 * 1024));
    }
}
