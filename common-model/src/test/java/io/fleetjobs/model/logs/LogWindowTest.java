package io.fleetjobs.model.logs;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.logs.LogWindow.Range;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LogWindowTest {
    @ParameterizedTest(name = "from {0} of a file of {1} bytes starts at {2}")
    @CsvSource({
            "0,      100,    0",      // the whole output
            "40,     100,    40",     // an offset the reader had
            "500,    100,    100",    // past the end: from the end, nothing is sent twice or invented
            "-65536, 100,    0",      // the last 64 KiB of a short file: all of it
            "-65536, 200000, 134464", // of a long one: its last 64 KiB
            "-10,    0,      0"})     // nothing written yet
    void whereShippingStarts(long from, long size, long expected) {
        assertThat(LogWindow.start(from, size)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "cursor {0}, file {1}, at most {2}: {3}")
    @CsvSource({
            "0,      10,     64,    0+10",   // all that is new, under the bound
            "0,      100000, 65536, 0+65536", // no more than the bound at a time
            "65536,  100000, 65536, 65536+34464",
            "100,    100,    64,    none",   // nothing new
            "120,    100,    64,    none",   // a file cut shorter: nothing (never a negative length)
            "0,      10,     0,     none"})
    void theNextPush(long cursor, long size, int max, String expected) {
        Optional<Range> push = LogWindow.nextPush(cursor, size, max);
        assertThat(push.map(r -> r.offset() + "+" + r.length()).orElse("none")).isEqualTo(expected);
    }

    @ParameterizedTest(name = "stored up to {0} with a cap of {1}: keep from {2}")
    @CsvSource({"100, 1000, 0", "1000, 1000, 0", "5000, 1000, 4000"})
    void whatTheStoreKeeps(long end, long cap, long keepFrom) {
        assertThat(LogWindow.keepFrom(end, cap)).isEqualTo(keepFrom);
    }

    @ParameterizedTest(name = "reader at {0}, chunk {1}+{2}: {3}")
    @CsvSource({
            "0,   0,   10, 0+10",  // the chunk the reader waits for
            "4,   0,   10, 4+6",   // the part it was not sent yet (two followers, two positions)
            "10,  0,   10, none",  // all of it sent
            "20,  0,   10, none",
            "0,   50,  10, 50+10"}) // bytes before it are gone (cap) or never shipped: the reader jumps
    void whatAReaderTakesOfAChunk(long position, long offset, int length, String expected) {
        assertThat(LogWindow.slice(position, new Range(offset, length)).map(r -> r.offset() + "+" + r.length())
                .orElse("none")).isEqualTo(expected);
    }
}
