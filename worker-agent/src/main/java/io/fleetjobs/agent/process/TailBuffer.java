package io.fleetjobs.agent.process;

import static java.nio.charset.StandardCharsets.UTF_8;

/** The last {@code capacity} bytes written to it, kept in a ring; read as UTF-8 text. Thread-safe. */
final class TailBuffer {
    private final byte[] ring;
    private int end;
    private int size;
    private long seen;

    TailBuffer(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must not be negative: " + capacity);
        }
        this.ring = new byte[capacity];
    }

    synchronized void append(byte[] bytes, int offset, int length) {
        seen += length;
        int capacity = ring.length;
        if (capacity == 0 || length == 0) {
            return;
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
