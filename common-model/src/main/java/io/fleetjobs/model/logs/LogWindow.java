package io.fleetjobs.model.logs;

import java.util.Optional;

/**
 * Offsets of a stream's bytes, pure: where an agent starts shipping a stream, what its next push carries, what the
 * store keeps of a stream, and which bytes of a stored chunk a reader at a position gets. Offsets count bytes of the
 * stream from its start (the agent's file), so a push is idempotent: the same offset is the same bytes.
 */
public final class LogWindow {
    private LogWindow() {
    }

    /** A run of bytes: {@code length} from {@code offset}. */
    public record Range(long offset, int length) {
        public long end() {
            return offset + length;
        }
    }

    /**
     * Where shipping starts for a follow asking {@code from}: an offset (at most the file's size), or with a negative
     * {@code from} the last {@code -from} bytes of what the file holds now.
     */
    public static long start(long from, long fileSize) {
        return from >= 0 ? Math.min(from, fileSize) : Math.max(0, fileSize + from);
    }

    /** The next push from {@code cursor} of a file of {@code fileSize} bytes, at most {@code maxBytes}; empty when none. */
    public static Optional<Range> nextPush(long cursor, long fileSize, int maxBytes) {
        if (cursor >= fileSize || maxBytes <= 0) {
            return Optional.empty();
        }
        return Optional.of(new Range(cursor, (int) Math.min(maxBytes, fileSize - cursor)));
    }

    /** Chunks that start below this offset go, once a stream holds bytes up to {@code storedEnd}. */
    public static long keepFrom(long storedEnd, long cap) {
        return Math.max(0, storedEnd - cap);
    }

    /**
     * What a reader at {@code position} takes of the stored chunk {@code chunk}: the part at or after its position, or
     * the whole chunk when it starts past it (the bytes between were never stored, or are gone: the reader jumps).
     * Empty when the chunk ends at or before the position.
     */
    public static Optional<Range> slice(long position, Range chunk) {
        if (chunk.end() <= position) {
            return Optional.empty();
        }
        long from = Math.max(position, chunk.offset());
        return Optional.of(new Range(from, (int) (chunk.end() - from)));
    }
}
