package io.fleetjobs.gateway;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.Map;
import org.apache.hc.core5.http.io.EofSensorInputStream;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;

/**
 * The proxy's requests to the services: Boot's HTTP client as configured, with one change. A service's answer
 * that is closed before its end drops its connection rather than reading on to the end.
 *
 * <p>The gateway closes an answer early when its own client has left: a live stream (events, logs) whose
 * reader closed the tab. Apache HttpClient's close reads a chunked body to its end, and a live stream has none, so
 * the gateway went on reading the service's stream, holding a connection and a thread for it, for as long as the
 * service held it open, which for live events is forever. Dropping the connection ends the stream at the
 * service, which sees its client gone.
 */
final class ProxyRequests implements ClientHttpRequestFactory {
    private final ClientHttpRequestFactory client;

    ProxyRequests(ClientHttpRequestFactory client) {
        this.client = client;
    }

    @Override
    public ClientHttpRequest createRequest(URI uri, HttpMethod method) throws IOException {
        return new Request(client.createRequest(uri, method));
    }

    private record Request(ClientHttpRequest request) implements ClientHttpRequest {
        @Override
        public ClientHttpResponse execute() throws IOException {
            return new Response(request.execute());
        }

        @Override
        public OutputStream getBody() throws IOException {
            return request.getBody();
        }

        @Override
        public HttpHeaders getHeaders() {
            return request.getHeaders();
        }

        @Override
        public HttpMethod getMethod() {
            return request.getMethod();
        }

        @Override
        public URI getURI() {
            return request.getURI();
        }

        @Override
        public Map<String, Object> getAttributes() {
            return request.getAttributes();
        }
    }

    private static final class Response implements ClientHttpResponse {
        private final ClientHttpResponse response;
        private Body body;

        Response(ClientHttpResponse response) {
            this.response = response;
        }

        @Override
        public HttpStatusCode getStatusCode() throws IOException {
            return response.getStatusCode();
        }

        @Override
        public String getStatusText() throws IOException {
            return response.getStatusText();
        }

        @Override
        public HttpHeaders getHeaders() {
            return response.getHeaders();
        }

        @Override
        public InputStream getBody() throws IOException {
            if (body == null) {
                body = new Body(response.getBody());
            }
            return body;
        }

        @Override
        public void close() {
            if (body != null) {
                body.dropUnlessFinished();
            }
            response.close();
        }
    }

    /** A body that knows whether it was read to its end. */
    private static final class Body extends FilterInputStream {
        private boolean finished;

        Body(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            finished |= b < 0;
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            finished |= n < 0;
            return n;
        }

        @Override
        public void close() throws IOException {
            dropUnlessFinished();
            super.close();
        }

        /** Before its end, drops the connection (Apache HttpClient's body): nothing more is read from it. */
        void dropUnlessFinished() {
            if (!finished && in instanceof EofSensorInputStream sensor) {
                try {
                    sensor.abort();
                } catch (IOException alreadyGone) {
                    // the connection is closed either way
                }
                finished = true;
            }
        }
    }
}
