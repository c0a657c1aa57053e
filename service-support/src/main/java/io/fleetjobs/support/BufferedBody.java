package io.fleetjobs.support;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/** A request body already read into memory, served again as the servlet's input stream (read synchronously). */
public final class BufferedBody {
    private BufferedBody() {
    }

    /** At most {@code limit} bytes of the stream: a reader past a body limit reads one byte over it, no more. */
    public static byte[] readAtMost(InputStream in, long limit) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[16 * 1024];
        int n;
        while (out.size() < limit && (n = in.read(buffer, 0, (int) Math.min(buffer.length, limit - out.size()))) > 0) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    public static ServletInputStream stream(byte[] body) {
        ByteArrayInputStream in = new ByteArrayInputStream(body);
        return new ServletInputStream() {
            @Override
            public int read() {
                return in.read();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                return in.read(b, off, len);
            }

            @Override
            public boolean isFinished() {
                return in.available() == 0;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener listener) {
                throw new UnsupportedOperationException("a buffered body is read synchronously");
            }
        };
    }
}
