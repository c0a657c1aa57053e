package io.fleetjobs.support;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * The body limit of a service's port, before anything else a request meets: before the identity or a machine
 * credential is checked and before a byte of the body is parsed. A body declared larger than the limit
 * ({@code Content-Length}) is refused unread; a body of unknown length (chunked) is read at most one byte past
 * the limit, and refused when that byte comes, else handed on from memory (so at most the limit is ever held).
 * Refused: 413, problem+json, and {@code Connection: close} (the rest of the body is not read).
 *
 * <p>Every servlet service applies it on every path ({@link BodyLimitAutoConfiguration}); the agent API of
 * scheduler-service, which is not behind the gateway, is why it exists.
 */
public final class BodyLimitFilter implements Filter {
    /** API.md: request bodies over 1 MiB are 413. */
    public static final long DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

    private final long maxBodyBytes;

    public BodyLimitFilter(long maxBodyBytes) {
        if (maxBodyBytes < 0 || maxBodyBytes >= Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a body limit is 0 to 2 GiB: " + maxBodyBytes);
        }
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            chain.doFilter(req, res);
            return;
        }
        long declared = request.getContentLengthLong();
        if (declared > maxBodyBytes) {
            tooLarge(response);
            return;
        }
        if (declared < 0 && request.getHeader("Transfer-Encoding") != null) {
            byte[] body = BufferedBody.readAtMost(request.getInputStream(), maxBodyBytes + 1);
            if (body.length > maxBodyBytes) {
                tooLarge(response);
                return;
            }
            chain.doFilter(new Buffered(request, body), response);
            return;
        }
        chain.doFilter(req, res);
    }


    private void tooLarge(HttpServletResponse response) throws IOException {
        response.setStatus(413);
        response.setHeader("Connection", "close");
        response.setContentType("application/problem+json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write("{\"type\":\"about:blank\",\"title\":\"Content Too Large\",\"status\":413,"
                + "\"detail\":\"request bodies are limited to " + maxBodyBytes + " bytes\"}");
    }

    /** A request whose body was read (within the limit) and is served again from memory. */
    private static final class Buffered extends HttpServletRequestWrapper {
        private final byte[] body;

        Buffered(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public int getContentLength() {
            return body.length;
        }

        @Override
        public long getContentLengthLong() {
            return body.length;
        }

        @Override
        public ServletInputStream getInputStream() {
            return BufferedBody.stream(body);
        }

        @Override
        public BufferedReader getReader() throws UnsupportedEncodingException {
            String encoding = getCharacterEncoding() == null ? StandardCharsets.UTF_8.name() : getCharacterEncoding();
            return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body),
                    Charset.forName(encoding)));
        }
    }
}
