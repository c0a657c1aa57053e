package io.fleetjobs.testsupport;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small HTTP client for tests: the real server, the real wire format. */
public final class Api {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient http = HttpClient.newHttpClient();
    private final String base;
    private final String token;

    public Api(int port, String token) {
        this.base = "http://127.0.0.1:" + port;
        this.token = token;
    }

    public Api as(String otherToken) {
        return new Api(Integer.parseInt(base.substring(base.lastIndexOf(':') + 1)), otherToken);
    }

    public Response get(String path) {
        return send(request(path).GET());
    }

    public Response post(String path, String body) {
        return post(path, body, Map.of());
    }

    public Response post(String path, String body, Map<String, String> headers) {
        HttpRequest.Builder r = request(path).header("Content-Type", "application/json")
                .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(r::header);
        return send(r);
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + path));
        if (token != null) {
            r.header("Authorization", "Bearer " + token);
        }
        return r;
    }

    private Response send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(r.statusCode(), r.body(), r.headers().firstValue("Location").orElse(null),
                    r.headers().firstValue("Content-Type").orElse(null));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public record Response(int status, String body, String location, String contentType) {
        public JsonNode json() {
            return JSON.readTree(body);
        }

        public String field(String name) {
            JsonNode n = json().get(name);
            return n == null || n.isNull() ? null : n.asString();
        }
    }
}
