package io.fleetjobs.jobservice.api;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * A followed log stream as Server-Sent Events: each piece of output one event, its text in {@code data:} lines, its
 * {@code id:} the byte offset of the stream it reaches, so that a client that reconnects with {@code Last-Event-ID}
 * resumes where it was ({@code offset}). Joined as SSE joins them (the data lines of an event with line feeds), the
 * events' data, one after the other, are the output as the job printed it, but that each CR or CR LF is a line feed
 * (an SSE line cannot hold a CR) and bytes that are not UTF-8 are U+FFFD. A character cut by a piece's end waits for
 * the next piece. {@link #base64()} events carry the bytes exactly instead ({@code encoding=base64}): each piece's
 * bytes as one base64 {@code data:} line, its id the offset it reaches, for a client that must pass the output on as
 * printed and resume where a cut left it (the SDK, {@code jobctl logs -f}). Pure: bytes in, text out, one instance a
 * stream.
 */
final class LogEvents {
    /** The last event of a stream that ended: a client stops here rather than reconnect. */
    static final String END = "event: end\ndata: \n\n";

    private final boolean base64;

    /** Text events (the default). */
    LogEvents() {
        this(false);
    }

    private LogEvents(boolean base64) {
        this.base64 = base64;
    }

    /** Events whose data is the base64 of the bytes as printed. */
    static LogEvents base64() {
        return new LogEvents(true);
    }

    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    private ByteBuffer pending = ByteBuffer.allocate(0); // the start of a character the last piece cut
    private boolean afterCr; // the last piece ended with a CR: a LF that begins the next one is the same break

    /**
     * The event for {@code length} bytes of the stream from {@code data[from]}, which reach byte offset {@code end}
     * of the stream ({@code end} < 0: not known, the event has no id); "" when they complete no character.
     */
    String of(byte[] data, int from, int length, long end) {
        if (base64) {
            if (length == 0) {
                return "";
            }
            return "data: " + Base64.getEncoder().encodeToString(Arrays.copyOfRange(data, from, from + length))
                    + "\n" + (end >= 0 ? "id: " + end + "\n" : "") + "\n";
        }
        ByteBuffer in = ByteBuffer.allocate(pending.remaining() + length).put(pending).put(data, from, length).flip();
        CharBuffer text = CharBuffer.allocate(in.remaining());
        decoder.decode(in, text, false); // never overflows: UTF-8 decodes to no more chars than bytes
        pending = in.slice();
        String s = text.flip().toString();
        if (afterCr && s.startsWith("\n")) {
            s = s.substring(1);
        }
        if (s.isEmpty()) {
            return "";
        }
        afterCr = s.endsWith("\r");
        StringBuilder event = new StringBuilder(s.length() + 32);
        for (String line : s.replace("\r\n", "\n").replace('\r', '\n').split("\n", -1)) {
            event.append("data: ").append(line).append('\n');
        }
        if (end >= 0) {
            event.append("id: ").append(end - pending.remaining()).append('\n');
        }
        return event.append('\n').toString();
    }
}
