package io.fleetjobs.testsupport;

import io.fleetjobs.support.ApiPaths;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.support.SignedIdentity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiFunction;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A small HTTP client for tests: the real server, the real wire format. It calls either as a
 * client of the gateway ({@code Authorization: Bearer <token>}) or, for a service tested on its own,
 * as the gateway does ({@link #withIdentity}: a freshly signed identity on every request).
 */
public final class Api {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private final String base;
    /** The credential headers of a request, by its method and path (a signed identity is made for one request). */
    private final BiFunction<String, String, Map<String, String>> credentials;

    public Api(int port, String token) {
        this("http://127.0.0.1:" + port, bearer(token));
    }

    private Api(String base, BiFunction<String, String, Map<String, String>> credentials) {
        this.base = base;
        this.credentials = credentials;
    }

    /**
     * A client that calls a service directly as the gateway would for {@code tenantName}
     * ({@code tenantId}) in {@code role}, signing with {@code secret}.
     */
    public static Api withIdentity(int port, String secret, UUID tenantId, String tenantName, CallerIdentity.Role role) {
        SignedIdentity signer = new SignedIdentity(secret, InstantSource.system());
        CallerIdentity caller = new CallerIdentity(tenantId, tenantName, role);
        return new Api("http://127.0.0.1:" + port, (method, path) -> {
            int q = path.indexOf('?');
            String pathOnly = q < 0 ? path : path.substring(0, q);
            SignedIdentity.Signed signed = signer.sign(caller, SignedIdentity.Target.of(ApiPaths.serviceFor(pathOnly), method,
                    pathOnly, q < 0 ? null : path.substring(q + 1)));
            return Map.of(SignedIdentity.HEADER, signed.value(), SignedIdentity.SIGNATURE_HEADER, signed.signature());
        });
    }

    /** The same server, with a bearer token instead (null: none). */
    public Api as(String otherToken) {
        return new Api(base, bearer(otherToken));
    }

    /** The same server, with these headers and nothing else as credentials (a forged identity, say). */
    public Api withHeaders(Map<String, String> headers) {
        Map<String, String> copy = Map.copyOf(headers);
        return new Api(base, (method, path) -> copy);
    }

    public int port() {
        return URI.create(base).getPort();
    }

    public Response get(String path) {
        return send(request("GET", path).GET());
    }

    public Response delete(String path) {
        return send(request("DELETE", path).DELETE());
    }

    public Response post(String path, String body) {
        return post(path, body, Map.of());
    }

    public Response patch(String path, String body) {
        return send(request("PATCH", path).header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(body)));
    }

    public Response post(String path, String body, Map<String, String> headers) {
        HttpRequest.Builder r = request("POST", path).header("Content-Type", "application/json")
                .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(r::header);
        return send(r);
    }

    /** A POST whose body goes out as it is produced: chunked, with no Content-Length. */
    public Response postStreamed(String path, byte[] body) {
        HttpRequest.Builder r = request("POST", path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofByteArray(body)));
        return send(r);
    }

    /** A request to this server with this client's credentials, for callers that read the answer their own way. */
    public HttpRequest.Builder request(String method, String path) {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + path));
        credentials.apply(method, path).forEach(r::header);
        return r;
    }

    private static BiFunction<String, String, Map<String, String>> bearer(String token) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (token != null) {
            headers.put("Authorization", "Bearer " + token);
        }
        Map<String, String> fixed = Map.copyOf(headers);
        return (method, path) -> fixed;
    }

    private Response send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> r = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(r.statusCode(), r.body(), r.headers().firstValue("Location").orElse(null),
                    r.headers().firstValue("Content-Type").orElse(null), r.headers().firstValue("Retry-After").orElse(null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public record Response(int status, String body, String location, String contentType, String retryAfter) {
        public JsonNode json() {
            return JSON.readTree(body);
        }

        public String field(String name) {
            JsonNode n = json().get(name);
            return n == null || n.isNull() ? null : n.asString();
        }
    }
}
