package io.fleetjobs.model.agent;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * How much of an attempt's output the control plane keeps: the last {@link #MAX_BYTES} bytes (UTF-8) of each of
 * stdout and stderr, whatever an agent reports. An agent keeps no more than that itself; the cap is the server's,
 * so that a report of any size (a broken or hostile agent) stores no more. The cut keeps the end, where the error
 * usually is, and starts on a whole character.
 */
public final class LogTail {
    /** 64 KiB. */
    public static final int MAX_BYTES = 64 * 1024;

    private LogTail() {
    }

    /** {@code text} itself when it is {@link #MAX_BYTES} or fewer in UTF-8, else its last bytes within that. */
    public static String cap(String text) {
        return cap(text, MAX_BYTES);
    }

    static String cap(String text, int maxBytes) {
        if (text == null || text.length() <= maxBytes / 3) { // a char is at most 3 bytes in UTF-8 (a pair, 4 for 2)
            return text;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxBytes) {
            return text;
        }
        int from = bytes.length - maxBytes;
        while (from < bytes.length && (bytes[from] & 0xC0) == 0x80) { // not in the middle of a character
            from++;
        }
        return StandardCharsets.UTF_8.decode(ByteBuffer.wrap(bytes, from, bytes.length - from)).toString();
    }
}
