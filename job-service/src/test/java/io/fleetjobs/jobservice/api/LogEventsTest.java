package io.fleetjobs.jobservice.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogEventsTest {
    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** What an SSE client makes of the events: each one's data lines joined by LF, the events one after the other. */
    private static String read(List<String> events) {
        StringBuilder text = new StringBuilder();
        for (String event : events) {
            List<String> data = new ArrayList<>();
            for (String line : event.split("\n")) {
                if (line.startsWith("data:")) {
                    data.add(line.substring(line.startsWith("data: ") ? 6 : 5));
                }
            }
            text.append(String.join("\n", data));
        }
        return text.toString();
    }

    @Test
    void linesAndAPartialLineReadBackAsPrintedAndEachIdIsTheOffsetReached() {
        LogEvents events = new LogEvents();
        String first = events.of(utf8("line 1\nline 2\npart"), 0, 18, 118);
        assertThat(first).isEqualTo("data: line 1\ndata: line 2\ndata: part\nid: 118\n\n");
        String second = events.of(utf8("ial\n"), 0, 4, 122);
        assertThat(second).isEqualTo("data: ial\ndata: \nid: 122\n\n");
        assertThat(read(List.of(first, second))).isEqualTo("line 1\nline 2\npartial\n");
    }

    @Test
    void aCharacterCutBetweenPiecesWaitsForItsEndAndTheIdSaysWhatWasSent() {
        LogEvents events = new LogEvents();
        byte[] euro = utf8("a€b"); // € is three bytes
        assertThat(events.of(euro, 0, 2, 2)).isEqualTo("data: a\nid: 1\n\n");
        assertThat(events.of(euro, 2, 1, 3)).isEmpty(); // still not a whole character
        assertThat(events.of(euro, 3, 2, 5)).isEqualTo("data: €b\nid: 5\n\n");
    }

    @Test
    void carriageReturnsCannotForgeFieldsAndBreakLinesInstead() {
        // an SSE line ends at CR too: a job printing "\rid: 999" would have set the client's Last-Event-ID
        LogEvents events = new LogEvents();
        byte[] printed = utf8("progress 10%\rprogress 20%\rid: 999\r\nevent: end\r");
        String event = events.of(printed, 0, printed.length, 1000);
        assertThat(event.split("\n")).allMatch(line -> line.startsWith("data: ") || line.equals("id: 1000"));
        // a CR LF split between two pieces is one line break
        String next = events.of(utf8("\nlast"), 0, 5, 1005);
        assertThat(read(List.of(event, next))).isEqualTo("progress 10%\nprogress 20%\nid: 999\nevent: end\nlast");
    }

    @Test
    void bytesThatAreNotUtf8AreReplacementCharactersAndATailHasNoId() {
        LogEvents events = new LogEvents();
        assertThat(events.of(new byte[] {'x', (byte) 0xFF, 'y'}, 0, 3, -1)).isEqualTo("data: x\uFFFDy\n\n");
    }

    @Test
    void base64EventsCarryTheBytesAsPrintedCrAndAllAndEachIdIsTheOffsetReached() {
        LogEvents events = LogEvents.base64();
        byte[] printed = {'1', '0', '%', '\r', (byte) 0xFF, '\n', (byte) 0xE2, (byte) 0x82}; // a euro sign cut after 2 bytes
        String event = events.of(printed, 0, printed.length, 108);
        assertThat(event).isEqualTo("data: " + Base64.getEncoder().encodeToString(printed) + "\nid: 108\n\n");
        assertThat(events.of(new byte[] {(byte) 0xAC, 'x'}, 0, 1, 109)).as("no character waits: the id is exact")
                .isEqualTo("data: rA==\nid: 109\n\n");
        assertThat(events.of(printed, 0, 0, 109)).isEmpty();
        assertThat(events.of(printed, 0, 2, -1)).as("a tail: no id").isEqualTo("data: MTA=\n\n");
    }
}
