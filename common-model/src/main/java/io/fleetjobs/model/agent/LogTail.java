package io.fleetjobs.model.agent;

import io.fleetjobs.model.StorableText;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * How much of an attempt's output the control plane keeps: the last {@link #MAX_BYTES} bytes (UTF-8) of each of
 * stdout and stderr, whatever an agent reports. An agent keeps no more than that itself; the cap is the server's,
 * so that a report of any size (a broken or hostile agent) stores no more. The cut keeps the end, where the error
 * usually is, and starts on a whole character.
 *
 * <p>Output is whatever the job printed, and a job may print any byte. PostgreSQL's text holds every character but
 * NUL (U+0000): a tail with one failed the statement that ends the attempt, and with it every other report of the
 * machine's heartbeat, again at each heartbeat, so that one job printing a NUL byte stopped its machine's jobs from
 * ever being seen to start or end. What is stored has each NUL as U+FFFD, the character that stands for what cannot
 * be shown.
 */
public final class LogTail {
    /** 64 KiB. */
    public static final int MAX_BYTES = 64 * 1024;

    private LogTail() {
    }

    /** Stands for a NUL in what is stored. */
    public static final char NUL_STORED_AS = '\uFFFD';

    /**
     * What the control plane stores of a tail an agent reported: each NUL as {@link #NUL_STORED_AS}, then its last
     * bytes within {@link #MAX_BYTES} (UTF-8); null stays null.
     */
    public static String stored(String text) {
        return cap(StorableText.hasNul(text) ? text.replace('\0', NUL_STORED_AS) : text, MAX_BYTES);
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
