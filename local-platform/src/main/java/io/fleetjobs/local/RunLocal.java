package io.fleetjobs.local;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

/**
 * {@code bin/run-local}'s program: the whole platform in the foreground, from the repository root,
 * until SIGTERM or Ctrl-C, which stop everything it started.
 *
 * <p>Environment: {@code JOBS_LOCAL_HOME} (default {@code .local}), {@code JOBS_LOCAL_WORKERS}
 * (default 2), {@code JOBS_LOCAL_PORT_OFFSET} (default 0), {@code FLEETJOBS_BIND_ADDRESS} (where the services
 * listen; default 127.0.0.1, as in docker-compose.yml), {@code JOBS_LOCAL_CDS} (default 1; 0 runs the
 * jars as they are, see {@link LocalPlatform.Builder#classDataSharing}), {@code JOBS_DB_URL} with {@code JOBS_DB_USER}
 * and {@code JOBS_DB_PASSWORD}, {@code JOBS_KAFKA_BOOTSTRAP_SERVERS}, {@code JOBS_BOOTSTRAP_ADMIN_TOKEN},
 * {@code JOBS_AGENT_JOIN_TOKEN}, {@code JOBS_INTERNAL_SECRET}; {@code JOBS_LOCAL_STARTED_AT} (epoch millis, set by the script) is where
 * the times it prints count from.
 */
public final class RunLocal {
    private RunLocal() {
    }

    public static void main(String[] args) {
        Map<String, String> env = System.getenv();
        PrintStream out = System.out;
        Instant startedAt = startedAt(env.get("JOBS_LOCAL_STARTED_AT"));
        Path home = Path.of(env.getOrDefault("JOBS_LOCAL_HOME", ".local"));
        int workers = number(env, "JOBS_LOCAL_WORKERS", 2);
        int offset = number(env, "JOBS_LOCAL_PORT_OFFSET", 0);

        Console console = new Console(out, startedAt);
        LocalPlatform platform = LocalPlatform.builder()
                .home(home)
                .workers(workers)
                .portOffset(offset)
                .bindAddress(env.get("FLEETJOBS_BIND_ADDRESS"))
                .databaseUrl(env.get("JOBS_DB_URL"))
                .databaseUser(env.getOrDefault("JOBS_DB_USER", "jobs"))
                .databasePassword(env.get("JOBS_DB_PASSWORD")) // no default password: an external database says its own
                .kafkaBootstrapServers(env.get("JOBS_KAFKA_BOOTSTRAP_SERVERS"))
                .adminToken(env.get("JOBS_BOOTSTRAP_ADMIN_TOKEN"))
                .joinToken(env.get("JOBS_AGENT_JOIN_TOKEN"))
                .internalSecret(env.get("JOBS_INTERNAL_SECRET"))
                .classDataSharing(!"0".equals(env.getOrDefault("JOBS_LOCAL_CDS", "1").strip()))
                .listener(console)
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            console.stopping();
            platform.stop();
            console.stopped();
            releaseScriptLock(home.resolve("run-local.pid"));
        }, "run-local-stop"));

        out.println("FleetJobs local mode: home " + home + ", " + workers + " worker" + (workers == 1 ? "" : "s")
                + "; logs in " + home.resolve("logs") + "/");
        try {
            platform.start();
        } catch (RuntimeException e) {
            if (console.isStopping()) {
                return; // Ctrl-C while starting: the hook stops what started
            }
            System.err.println();
            System.err.println("run-local: " + e.getMessage());
            System.exit(1);
        }
        console.summary(platform, home);
        try {
            new CountDownLatch(1).await(); // until a signal; the shutdown hook stops everything
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Instant startedAt(String millis) {
        try {
            return Instant.ofEpochMilli(Long.parseLong(millis));
        } catch (RuntimeException e) {
            return ProcessHandle.current().info().startInstant().orElseGet(Instant::now);
        }
    }

    private static int number(Map<String, String> env, String name, int fallback) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            System.err.println("run-local: " + name + " must be a whole number, not '" + value + "'");
            System.exit(2);
            return fallback;
        }
    }

    /** bin/run-local wrote its pid (which is this JVM's: it exec'd java) before starting; the lock goes with us. */
    private static void releaseScriptLock(Path lock) {
        try {
            if (Files.isRegularFile(lock)
                    && Files.readString(lock, StandardCharsets.UTF_8).strip().equals(Long.toString(ProcessHandle.current().pid()))) {
                Files.delete(lock);
            }
        } catch (IOException e) {
            // a stale lock is recognised by its dead pid
        }
    }

    /** Progress lines for people. */
    static final class Console implements LocalPlatform.Listener {
        private final PrintStream out;
        private final Instant startedAt;
        private volatile boolean stopping;

        Console(PrintStream out, Instant startedAt) {
            this.out = out;
            this.startedAt = startedAt;
        }

        boolean isStopping() {
            return stopping;
        }

        private String since() {
            return String.format(Locale.ROOT, "%5.1f s", Duration.between(startedAt, Instant.now()).toMillis() / 1000.0);
        }

        private synchronized void line(String component, String what, String detail) {
            out.println(String.format(Locale.ROOT, "  %-19s %-8s %s", component, what, detail));
        }

        @Override
        public void starting(List<String> components) {
            out.println(since() + "  starting " + String.join(", ", components) + " …");
        }

        @Override
        public void ready(String component, String address, Duration took) {
            line(component, "ready", address + "  (" + since().strip() + ")");
        }

        @Override
        public void skipped(String component, String why) {
            line(component, "skipped", why);
        }

        @Override
        public void stopping(String component) {
            line(component, "stopping", "");
        }

        @Override
        public void stopped(String component) {
            line(component, "stopped", "");
        }

        @Override
        public void exited(String component, int exitCode, Path log) {
            if (!stopping) {
                line(component, "EXITED", (exitCode >= 0 ? "with code " + exitCode + "; " : "") + "see " + log);
            }
        }

        @Override
        public void note(String message) {
            out.println("  " + message);
        }

        void stopping() {
            stopping = true;
            out.println();
            out.println("stopping everything …");
        }

        void stopped() {
            out.println("stopped.");
            out.flush();
        }

        void summary(LocalPlatform platform, Path home) {
            String url = platform.url().toString();
            String ports = platform.ports().values().stream().flatMap(List::stream).map(String::valueOf)
                    .collect(Collectors.joining(" "));
            boolean gateway = platform.components().contains(LocalPlatform.API_GATEWAY);
            out.println();
            out.println("FleetJobs is up in " + since().strip() + ".");
            out.println("  URL           " + url + (gateway ? "" : "   (job-service: no gateway runs)"));
            out.println("  admin token   " + platform.adminToken()
                    + (platform.generatedAdminToken() ? "   (generated, kept in " + home.resolve("admin-token") + ")" : ""));
            out.println("  join token    " + platform.joinToken()
                    + (platform.generatedJoinToken() ? "   (generated, kept in " + home.resolve("join-token") + ")" : ""));
            out.println("  postgres      " + platform.databaseUrl() + " (user " + platform.databaseUser()
                    + (platform.embeddedDatabase() ? ", data in " + home.resolve("pg") : "") + ")");
            out.println("  kafka         " + platform.kafkaBootstrapServers());
            out.println("  ports         " + ports);
            out.println("  logs          " + home.resolve("logs") + "/");
            out.println();
            out.println("Try:");
            out.println("  export JOBS_URL=" + url + " JOBS_TOKEN=" + platform.adminToken());
            out.println("  curl -s -X POST $JOBS_URL/api/v1/jobs -H \"Authorization: Bearer $JOBS_TOKEN\" \\");
            out.println("       -H 'Content-Type: application/json' -d '{\"name\": \"hello\", \"resources\": {\"cpu\": 0.1, "
                    + "\"memoryMb\": 16}, \"execution\": {\"command\": [\"sh\", \"-c\", \"echo hello\"]}}'");
            out.println("  curl -s $JOBS_URL/api/v1/jobs -H \"Authorization: Bearer $JOBS_TOKEN\"");
            if (Files.isExecutable(Path.of("bin", "jobctl"))) {
                out.println("  ID=$(bin/jobctl submit --name hello --cpu 0.1 --memory 16Mi -- echo hello) && bin/jobctl watch $ID");
            }
            out.println();
            out.println("Ctrl-C stops everything.");
            out.flush();
        }
    }
}
