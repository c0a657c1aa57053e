package io.fleetjobs.agent.process;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.Arrays;

/**
 * The last {@code capacity} bytes written to it, kept in a ring; read as UTF-8 text. Thread-safe.
 *
 * <p>The ring grows with what is written, up to the capacity: a job that writes little costs its agent little. Sized
 * whole at the start, two tails of 64 KiB an attempt made 490 quiet attempts of one tenant's flood fill an agent's
 * 96 MiB heap, and it died.
 */
final class TailBuffer {
    private static final byte[] EMPTY = new byte[0];
    private static final int FIRST_SIZE = 1024;
    private final int capacity;
    /** Until it is {@code capacity} long, the bytes lie at its start, unwrapped: {@code end == size}. */
    private byte[] ring = EMPTY;
    private int end;
    private int size;
    private long seen;

    TailBuffer(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must not be negative: " + capacity);
        }
        this.capacity = capacity;
    }

    synchronized void append(byte[] bytes, int offset, int length) {
        seen += length;
        if (capacity == 0 || length == 0) {
            return;
        }
        if (ring.length < capacity) {
            long needed = (long) size + length;
            if (needed > ring.length) {
                int grown = (int) Math.min(capacity, Math.max(needed, Math.max(FIRST_SIZE, 2L * ring.length)));
                ring = Arrays.copyOf(ring, grown);
            }
            if (needed < ring.length || ring.length < capacity) {
                System.arraycopy(bytes, offset, ring, size, length);
                size += length;
                end = size;
                return;
            }
            // full size now: from here on a ring
        }
        if (length >= capacity) {
            System.arraycopy(bytes, offset + length - capacity, ring, 0, capacity);
            end = 0;
            size = capacity;
            return;
        }
        int first = Math.min(length, capacity - end);
        System.arraycopy(bytes, offset, ring, end, first);
        System.arraycopy(bytes, offset + first, ring, 0, length - first);
        end = (end + length) % capacity;
        size = Math.min(capacity, size + length);
    }

    /** The bytes it holds in memory now, whatever of them is written: what it costs its agent. */
    synchronized int retained() {
        return ring.length;
    }

    synchronized byte[] bytes() {
        byte[] out = new byte[size];
        if (size == 0) {
            return out;
        }
        int start = Math.floorMod(end - size, ring.length);
        int first = Math.min(size, ring.length - start);
        System.arraycopy(ring, start, out, 0, first);
        System.arraycopy(ring, 0, out, first, size - first);
        return out;
    }

    /**
     * The kept bytes as text. A character cut in two by the start of the window (older bytes dropped) or
     * by its end (the rest not read yet) is left out rather than shown as a replacement character.
     */
    String text() {
        byte[] bytes;
        boolean cut;
        synchronized (this) {
            bytes = bytes();
            cut = seen > bytes.length;
        }
        int from = 0;
        if (cut) {
            while (from < bytes.length && from < 3 && isContinuation(bytes[from])) {
                from++;
            }
        }
        int to = bytes.length;
        for (int i = to - 1; i >= Math.max(from, to - 4); i--) {
            int b = bytes[i] & 0xFF;
            if (isContinuation(bytes[i])) {
                continue;
            }
            int length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
            if (to - i < length) {
                to = i;
            }
            break;
        }
        return new String(bytes, from, to - from, UTF_8);
    }

    private static boolean isContinuation(byte b) {
        return (b & 0xC0) == 0x80;
    }
}
