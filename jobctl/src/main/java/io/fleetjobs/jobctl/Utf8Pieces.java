package io.fleetjobs.jobctl;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Decodes output that arrives in pieces cut anywhere: a character split between two pieces is printed whole, with the
 * second. Malformed bytes print as U+FFFD.
 */
final class Utf8Pieces {
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    private ByteBuffer pending = ByteBuffer.allocate(0);

    /** The text of {@code piece}, with what was left of the one before, less an incomplete character at its end. */
    String next(byte[] piece) {
        ByteBuffer in = ByteBuffer.allocate(pending.remaining() + piece.length);
        in.put(pending).put(piece).flip();
        CharBuffer out = CharBuffer.allocate(in.remaining() + 1);
        decoder.decode(in, out, false);
        pending = in.slice();
        return out.flip().toString();
    }
}
