package io.fleetjobs.sdk.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in for the FleetJobs API on a local port, for tests of programs that call it (the SDK's own layer,
 * jobctl, and yours): each route answers what it was told, in turn (the last answer repeats), and every call is
 * kept. A route it was not told about answers 404 with a problem. Not the platform: nothing is validated or
 * stored. It ships in the SDK's main jar (JDK classes only) so that no build needs a test artifact.
 */
public final class StubApi implements AutoCloseable {
    private final HttpServer server;
    private final Map<String, Deque<Answer>> routes = new ConcurrentHashMap<>();
    private final List<Call> calls = new CopyOnWriteArrayList<>();

    public StubApi() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** What {@code method path} (the path without its query) answers from now on: each answer once, the last for good. */
    public StubApi on(String method, String path, Answer... answers) {
        routes.put(method + " " + path, new ArrayDeque<>(List.of(answers)));
        return this;
    }

    public List<Call> calls() {
        return List.copyOf(calls);
    }

    /** The calls to {@code method path}, oldest first. */
    public List<Call> calls(String method, String path) {
        return calls.stream().filter(c -> c.method().equals(method) && c.path().equals(path)).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String path = exchange.getRequestURI().getRawPath();
        calls.add(new Call(exchange.getRequestMethod(), path, exchange.getRequestURI().getRawQuery(),
                Map.copyOf(exchange.getRequestHeaders()), body));
        Deque<Answer> queue = routes.get(exchange.getRequestMethod() + " " + path);
        Answer answer;
        if (queue == null) {
            answer = Answer.problem(404, "no such route in the stub: " + path);
        } else {
            synchronized (queue) {
                answer = queue.size() > 1 ? queue.poll() : queue.peek();
            }
        }
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", answer.contentType());
        exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }

    /** One request as it arrived. */
    public record Call(String method, String path, String query, Map<String, List<String>> headers, String body) {
        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().getFirst()).findFirst().orElse(null);
        }
    }

    /** An answer: a status and a body. */
    public record Answer(int status, String contentType, String body) {
        public static Answer json(int status, String body) {
            return new Answer(status, "application/json", body);
        }

        public static Answer ok(String body) {
            return json(200, body);
        }

        public static Answer problem(int status, String detail) {
            return new Answer(status, "application/problem+json", "{\"type\":\"about:blank\",\"status\":" + status
                    + ",\"title\":\"stub\",\"detail\":\"" + detail + "\"}");
        }
    }

    /** A Job as the API answers it, in {@code state}, with {@code attempt} attempts so far. */
    public static String job(UUID id, String state, int attempt) {
        return """
                {"id":"%s","tenant":"alice","name":"hello","queue":"default","priority":500,
                 "resources":{"cpu":0.5,"memoryMb":64,"gpuCount":0},"placement":{},
                 "execution":{"command":["echo","hi"],"env":{}},"retry":{"maxAttempts":3,"retryOnExitCodes":[]},
                 "labels":{},"state":"%s","attempt":%d,"cancelRequested":false,
                 "createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:06Z"%s}"""
                .formatted(id, state, attempt, switch (state) {
                    case "SUCCEEDED" -> ",\"exitCode\":0,\"finishedAt\":\"2026-01-02T03:05:00Z\"";
                    case "FAILED" -> ",\"exitCode\":3,\"failureReason\":\"EXIT_CODE\",\"finishedAt\":\"2026-01-02T03:05:00Z\"";
                    default -> "";
                });
    }

    /** An event list: the states in order, the first from nothing. */
    public static String events(String... states) {
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < states.length; i++) {
            items.append(i == 0 ? "" : ",").append("{\"at\":\"2026-01-02T03:04:0").append(i).append("Z\",")
                    .append(i == 0 ? "" : "\"from\":\"" + states[i - 1] + "\",").append("\"to\":\"").append(states[i])
                    .append("\",\"reason\":\"step ").append(i).append("\"}");
        }
        return "{\"items\":[" + items + "]}";
    }
}
