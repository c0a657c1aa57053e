package io.fleetjobs.model;

/**
 * Text PostgreSQL can store: its {@code text} and {@code jsonb} hold every character but NUL (U+0000), and a write with
 * one fails. What a client sends with a NUL is refused as bad input ({@link #NUL_REFUSED}, naming the field); what a
 * job prints is stored with each NUL as U+FFFD ({@code agent.LogTail}).
 */
public final class StorableText {
    /** The message of a field refused for holding NUL. */
    public static final String NUL_REFUSED = "must not contain the NUL character (U+0000)";

    private StorableText() {
    }

    /** Whether {@code text} holds a NUL (false for null). */
    public static boolean hasNul(String text) {
        return text != null && text.indexOf('\0') >= 0;
    }
}
