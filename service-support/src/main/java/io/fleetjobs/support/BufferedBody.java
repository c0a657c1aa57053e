package io.fleetjobs.support;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import java.io.ByteArrayInputStream;

/** A request body already read into memory, served again as the servlet's input stream (read synchronously). */
public final class BufferedBody {
    private BufferedBody() {
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
